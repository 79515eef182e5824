// Does not compile: `seedfall test` shows Go's own error and exits 2.
package nobuild

import "testing"

func TestBroken(t *testing.T) {
	var x int = "not an int"
	_ = x
}
