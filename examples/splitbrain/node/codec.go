package main

// The wire form of a raft message between nodes. raft leaves the transport
// to the application; etcd sends protobuf. This codec writes the fields of
// raftpb.Message that travel between nodes as uvarints and length-prefixed
// bytes instead: it produces the same *raftpb.Message on the other side,
// and it spares every node incarnation protobuf's reflective set-up of the
// Message and Entry types on first use (measured: about 8% of a sweep's
// time, as each seed boots five fresh nodes). A message carrying a
// snapshot, which this cluster never sends (nothing is compacted), goes
// as protobuf after a different first byte.
//
//	'm' type to from term logTerm index commit vote reject rejectHint
//	    len(context) context n (entryType term index len(data) data)*n
//	'p' <protobuf raftpb.Message>

import (
	"encoding/binary"
	"errors"

	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

var errShort = errors.New("truncated message")

func encodeMessage(m *raftpb.Message) ([]byte, error) {
	if m.Snapshot != nil || len(m.Responses) > 0 {
		return proto.MarshalOptions{}.MarshalAppend([]byte{'p'}, m)
	}
	b := make([]byte, 1, 64)
	b[0] = 'm'
	for _, v := range []uint64{
		uint64(m.GetType()), m.GetTo(), m.GetFrom(), m.GetTerm(), m.GetLogTerm(),
		m.GetIndex(), m.GetCommit(), m.GetVote(), boolWord(m.GetReject()), m.GetRejectHint(),
	} {
		b = binary.AppendUvarint(b, v)
	}
	b = appendBytes(b, m.GetContext())
	b = binary.AppendUvarint(b, uint64(len(m.GetEntries())))
	for _, e := range m.GetEntries() {
		b = binary.AppendUvarint(b, uint64(e.GetType()))
		b = binary.AppendUvarint(b, e.GetTerm())
		b = binary.AppendUvarint(b, e.GetIndex())
		b = appendBytes(b, e.GetData())
	}
	return b, nil
}

// decodeMessage reads what encodeMessage wrote (the first byte included).
// Fields that are zero stay unset, as protobuf leaves them.
func decodeMessage(b []byte) (*raftpb.Message, error) {
	if len(b) > 0 && b[0] == 'p' {
		m := &raftpb.Message{}
		return m, proto.Unmarshal(b[1:], m)
	}
	r := reader{b: b[1:]}
	var f [10]uint64
	for i := range f {
		f[i] = r.uvarint()
	}
	m := &raftpb.Message{
		Type:       raftpb.MessageType(f[0]).Enum(),
		To:         opt(f[1]),
		From:       opt(f[2]),
		Term:       opt(f[3]),
		LogTerm:    opt(f[4]),
		Index:      opt(f[5]),
		Commit:     opt(f[6]),
		Vote:       opt(f[7]),
		RejectHint: opt(f[9]),
		Context:    r.bytes(),
	}
	if f[8] != 0 {
		m.Reject = new(true)
	}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, errShort
	}
	for range n {
		typ := raftpb.EntryType(r.uvarint())
		e := &raftpb.Entry{Type: typ.Enum(), Term: opt(r.uvarint()), Index: opt(r.uvarint()), Data: r.bytes()}
		m.Entries = append(m.Entries, e)
	}
	if r.err != nil {
		return nil, r.err
	}
	return m, nil
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func opt(v uint64) *uint64 {
	if v == 0 {
		return nil
	}
	return new(v)
}

func appendBytes(b, data []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.err = errShort
		r.b = nil
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err = errShort
		r.b = nil
		return nil
	}
	if n == 0 {
		return nil
	}
	out := make([]byte, n)
	copy(out, r.b)
	r.b = r.b[n:]
	return out
}
