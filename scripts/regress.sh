#!/usr/bin/env bash
# The examples' regression check under the name the reference gives it
# (`bash scripts/regress.sh`): runs examples/regress.sh, which stays beside
# the examples it reads, with the same arguments and environment. See that
# script for the usage, the entries and the exit codes.
exec bash "$(dirname "$0")/../examples/regress.sh" "$@"
