package main

// raftNode is etcd's contrib/raftexample raft.go ported to the v3.7 API
// (raftpb with pointer fields): on boot the MemoryStorage is rebuilt from
// etcd's WAL and snapshotter (the newest snapshot the WAL names, then the
// WAL's hard state and entries after it), and the Ready loop saves the
// snapshot, then the hard state and entries to the WAL (fsynced when raft
// says MustSync) before it sends messages or applies committed entries.
//
// Differences from raftexample, each for a reason:
//   - a WAL whose last record is torn (ErrUnexpectedEOF) is repaired once
//     with wal.Repair and reopened, as etcd's own bootstrap does
//     (etcdserver/bootstrap.go openWALFromSnapshot); raftexample would
//     refuse to start after any crash in the middle of a write;
//   - the WAL directory is not made with os.Mkdir before wal.Create:
//     Create removes it and renames its own temporary directory there,
//     and a crash between the two left raftexample unable to boot (Mkdir
//     fails with EEXIST);
//   - storage errors panic instead of log.Fatal: a node that cannot read
//     its own disk is a bug to report, not a process to restart forever;
//   - proposals and ReadIndex requests carry IDs so the HTTP API can wait
//     for their outcome (api.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/server/v3/etcdserver/api/snap"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"
)

// snapshotCatchUpEntries is how many entries stay in memory behind a
// snapshot, for slow followers (raftexample's snapshotCatchUpEntriesN,
// smaller so that a follower that lags more gets a snapshot).
const snapshotCatchUpEntries = 20

// segmentBytes is the WAL segment size: small, so that runs cut new
// segments (wal.cut) often. etcd's default is 64 MB.
const segmentBytes = 8 * 1024

type raftNode struct {
	id        uint64
	names     []string
	waldir    string
	snapdir   string
	snapCount uint64
	lg        *zap.Logger

	node        raft.Node
	storage     *raft.MemoryStorage
	wal         *wal.WAL
	snapshotter *snap.Snapshotter
	trans       *transport
	kv          *kvStore

	// Owned by the Ready loop.
	confState     *raftpb.ConfState
	snapshotIndex uint64

	lead atomic.Uint64

	mu        sync.Mutex
	applied   uint64
	proposals map[string]chan result   // proposal ID -> its result once applied
	reads     map[string]chan uint64   // ReadIndex context -> the read index
	appliedAt map[chan struct{}]uint64 // closed once applied reaches the index
}

func newRaftNode(id uint64, names []string, data string, snapCount uint64) *raftNode {
	wal.SegmentSizeBytes = segmentBytes
	rn := &raftNode{
		id:        id,
		names:     names,
		waldir:    filepath.Join(data, "wal"),
		snapdir:   filepath.Join(data, "snap"),
		snapCount: snapCount,
		lg:        zap.NewNop(),
		kv:        newKVStore(),
		proposals: map[string]chan result{},
		reads:     map[string]chan uint64{},
		appliedAt: map[chan struct{}]uint64{},
	}
	rn.trans = newTransport(rn, names)
	return rn
}

// start replays the disk and starts raft and the Ready loop.
func (rn *raftNode) start() {
	// Every directory on the way is made durable, its parent included: a
	// fresh disk has none of them, and a name is only durable once the
	// directory holding it is synced.
	if err := os.MkdirAll(rn.snapdir, 0o750); err != nil {
		log.Panicf("cannot create dir for snapshot (%v)", err)
	}
	for _, d := range []string{filepath.Dir(filepath.Dir(rn.snapdir)), filepath.Dir(rn.snapdir), rn.snapdir} {
		if err := syncDir(d); err != nil {
			log.Panicf("sync %s: %v", d, err)
		}
	}
	rn.snapshotter = snap.New(rn.lg, rn.snapdir)
	oldwal := wal.Exist(rn.waldir)
	rn.wal = rn.replayWAL()

	c := &raft.Config{
		ID:                        rn.id,
		ElectionTick:              10,
		HeartbeatTick:             1,
		Storage:                   rn.storage,
		MaxSizePerMsg:             1024 * 1024,
		MaxInflightMsgs:           256,
		MaxUncommittedEntriesSize: 1 << 30,
		PreVote:                   true,
		CheckQuorum:               true,
		Logger:                    &raft.DefaultLogger{Logger: log.New(io.Discard, "", 0)},
	}
	if oldwal {
		rn.node = raft.RestartNode(c)
	} else {
		peers := make([]raft.Peer, len(rn.names))
		for i := range peers {
			peers[i] = raft.Peer{ID: uint64(i + 1)}
		}
		rn.node = raft.StartNode(c, peers)
	}
	rn.trans.start()
	go rn.serveChannels()
}

// loadSnapshot is the newest snapshot file that the WAL also records.
func (rn *raftNode) loadSnapshot() *raftpb.Snapshot {
	if !wal.Exist(rn.waldir) {
		return nil
	}
	walSnaps, err := wal.ValidSnapshotEntries(rn.lg, rn.waldir)
	if err != nil {
		log.Panicf("error listing snapshots (%v)", err)
	}
	snapshot, err := rn.snapshotter.LoadNewestAvailable(walSnaps)
	if err != nil && !errors.Is(err, snap.ErrNoSnapshot) {
		log.Panicf("error loading snapshot (%v)", err)
	}
	return snapshot
}

// openWAL opens the WAL at snapshot, creating it first if there is none.
func (rn *raftNode) openWAL(snapshot *raftpb.Snapshot) *wal.WAL {
	if !wal.Exist(rn.waldir) {
		w, err := wal.Create(rn.lg, rn.waldir, nil)
		if err != nil {
			log.Panicf("create wal error (%v)", err)
		}
		w.Close()
	}
	walsnap := &walpb.Snapshot{}
	if snapshot != nil {
		walsnap.Index, walsnap.Term = new(snapshot.GetMetadata().GetIndex()), new(snapshot.GetMetadata().GetTerm())
	}
	w, err := wal.Open(rn.lg, rn.waldir, walsnap)
	if err != nil {
		log.Panicf("error loading wal (%v)", err)
	}
	return w
}

// replayWAL rebuilds the MemoryStorage and the key-value store from the
// newest snapshot and the WAL after it.
func (rn *raftNode) replayWAL() *wal.WAL {
	snapshot := rn.loadSnapshot()
	repaired := false
	for {
		w := rn.openWAL(snapshot)
		_, st, ents, err := w.ReadAll()
		if err != nil {
			w.Close()
			if repaired || !errors.Is(err, io.ErrUnexpectedEOF) {
				log.Panicf("failed to read WAL (%v)", err)
			}
			if !wal.Repair(rn.lg, rn.waldir) {
				log.Panicf("failed to repair WAL (%v)", err)
			}
			repaired = true
			continue
		}
		rn.storage = raft.NewMemoryStorage()
		if snapshot != nil {
			if err := rn.storage.ApplySnapshot(snapshot); err != nil {
				log.Panicf("apply snapshot: %v", err)
			}
			rn.kv.restore(snapshot.GetData())
		}
		rn.storage.SetHardState(st)
		rn.storage.Append(ents)
		fmt.Fprintf(os.Stderr, "replayed the WAL: snapshot at %d, term %d, commit %d, %d entries after it, repaired %v\n",
			snapshot.GetMetadata().GetIndex(), st.GetTerm(), st.GetCommit(), len(ents), repaired)
		return w
	}
}

func (rn *raftNode) saveSnap(s *raftpb.Snapshot) error {
	walSnap := &walpb.Snapshot{
		Index:     new(s.GetMetadata().GetIndex()),
		Term:      new(s.GetMetadata().GetTerm()),
		ConfState: s.GetMetadata().GetConfState(),
	}
	// Save the snapshot file before writing the snapshot to the WAL. This
	// makes it possible for the snapshot file to become orphaned, but
	// prevents a WAL snapshot entry from having no corresponding snapshot
	// file.
	if err := rn.snapshotter.SaveSnap(s); err != nil {
		return err
	}
	if err := rn.wal.SaveSnapshot(walSnap); err != nil {
		return err
	}
	return rn.wal.ReleaseLockTo(s.GetMetadata().GetIndex())
}

func (rn *raftNode) serveChannels() {
	s, err := rn.storage.Snapshot()
	if err != nil {
		log.Panic(err)
	}
	rn.confState = s.GetMetadata().GetConfState()
	rn.snapshotIndex = s.GetMetadata().GetIndex()
	rn.setApplied(s.GetMetadata().GetIndex())

	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			rn.node.Tick()
		case rd := <-rn.node.Ready():
			if rd.SoftState != nil {
				rn.lead.Store(rd.SoftState.Lead)
			}
			if !raft.IsEmptySnap(rd.Snapshot) {
				if err := rn.saveSnap(rd.Snapshot); err != nil {
					log.Panicf("save snapshot: %v", err)
				}
			}
			if err := rn.wal.Save(rd.HardState, rd.Entries); err != nil {
				log.Panicf("wal save: %v", err)
			}
			if !raft.IsEmptySnap(rd.Snapshot) {
				rn.storage.ApplySnapshot(rd.Snapshot)
				rn.publishSnapshot(rd.Snapshot)
			}
			rn.storage.Append(rd.Entries)
			rn.trans.send(rn.processMessages(rd.Messages))
			for _, rs := range rd.ReadStates {
				rn.readReady(rs)
			}
			rn.publishEntries(rn.entriesToApply(rd.CommittedEntries))
			rn.maybeTriggerSnapshot()
			rn.node.Advance()
		}
	}
}

// processMessages gives outgoing snapshots the current configuration, as
// raftexample does.
func (rn *raftNode) processMessages(ms []*raftpb.Message) []*raftpb.Message {
	for _, m := range ms {
		if m.GetType() == raftpb.MessageType_MsgSnap && m.Snapshot != nil && m.Snapshot.Metadata != nil {
			m.Snapshot.Metadata.ConfState = rn.confState
		}
	}
	return ms
}

func (rn *raftNode) publishSnapshot(s *raftpb.Snapshot) {
	idx := s.GetMetadata().GetIndex()
	if idx <= rn.appliedIndex() {
		log.Panicf("snapshot index [%d] should > applied index [%d]", idx, rn.appliedIndex())
	}
	fmt.Fprintf(os.Stderr, "applied a snapshot from the leader at %d\n", idx)
	rn.kv.restore(s.GetData())
	rn.confState = s.GetMetadata().GetConfState()
	rn.snapshotIndex = idx
	rn.setApplied(idx)
}

func (rn *raftNode) entriesToApply(ents []*raftpb.Entry) []*raftpb.Entry {
	if len(ents) == 0 {
		return nil
	}
	applied := rn.appliedIndex()
	first := ents[0].GetIndex()
	if first > applied+1 {
		log.Panicf("first index of committed entry[%d] should <= progress.appliedIndex[%d]+1", first, applied)
	}
	if applied-first+1 < uint64(len(ents)) {
		return ents[applied-first+1:]
	}
	return nil
}

// publishEntries applies committed entries to the store in log order and
// answers the proposals among them.
func (rn *raftNode) publishEntries(ents []*raftpb.Entry) {
	for _, e := range ents {
		switch e.GetType() {
		case raftpb.EntryType_EntryNormal:
			if len(e.GetData()) == 0 {
				break // the empty entry a new leader appends
			}
			var p proposal
			if err := json.Unmarshal(e.GetData(), &p); err != nil {
				log.Panicf("bad entry %d: %v", e.GetIndex(), err)
			}
			res := rn.kv.apply(p)
			rn.mu.Lock()
			if ch, ok := rn.proposals[p.ID]; ok {
				ch <- res
				delete(rn.proposals, p.ID)
			}
			rn.mu.Unlock()
		case raftpb.EntryType_EntryConfChange:
			var cc raftpb.ConfChange
			if err := proto.Unmarshal(e.GetData(), &cc); err != nil {
				log.Panicf("bad conf change %d: %v", e.GetIndex(), err)
			}
			rn.confState = rn.node.ApplyConfChange(&cc)
		}
		rn.setApplied(e.GetIndex())
	}
}

func (rn *raftNode) maybeTriggerSnapshot() {
	applied := rn.appliedIndex()
	if applied-rn.snapshotIndex <= rn.snapCount {
		return
	}
	data := rn.kv.snapshot()
	s, err := rn.storage.CreateSnapshot(applied, rn.confState, data)
	if err != nil {
		log.Panic(err)
	}
	if err := rn.saveSnap(s); err != nil {
		log.Panicf("save snapshot: %v", err)
	}
	compactIndex := uint64(1)
	if applied > snapshotCatchUpEntries {
		compactIndex = applied - snapshotCatchUpEntries
	}
	if err := rn.storage.Compact(compactIndex); err != nil && !errors.Is(err, raft.ErrCompacted) {
		log.Panic(err)
	}
	rn.snapshotIndex = applied
}

func (rn *raftNode) appliedIndex() uint64 {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.applied
}

func (rn *raftNode) setApplied(i uint64) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.applied = i
	for ch, at := range rn.appliedAt {
		if at <= i {
			close(ch)
			delete(rn.appliedAt, ch)
		}
	}
}

// propose puts p through the log and waits until this node applies it.
func (rn *raftNode) propose(ctx context.Context, p proposal) (result, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return result{}, err
	}
	ch := make(chan result, 1)
	rn.mu.Lock()
	rn.proposals[p.ID] = ch
	rn.mu.Unlock()
	defer func() {
		rn.mu.Lock()
		delete(rn.proposals, p.ID)
		rn.mu.Unlock()
	}()
	if err := rn.node.Propose(ctx, data); err != nil {
		return result{}, err
	}
	select {
	case res := <-ch:
		return res, nil
	case <-ctx.Done():
		return result{}, ctx.Err()
	}
}

// linearizableRead waits until this node has applied everything the
// leader had committed when the read arrived (raft's ReadIndex).
func (rn *raftNode) linearizableRead(ctx context.Context, id string) error {
	ch := make(chan uint64, 1)
	rn.mu.Lock()
	rn.reads[id] = ch
	rn.mu.Unlock()
	defer func() {
		rn.mu.Lock()
		delete(rn.reads, id)
		rn.mu.Unlock()
	}()
	if err := rn.node.ReadIndex(ctx, []byte(id)); err != nil {
		return err
	}
	var index uint64
	select {
	case index = <-ch:
	case <-ctx.Done():
		return ctx.Err()
	}
	return rn.waitApplied(ctx, index)
}

func (rn *raftNode) readReady(rs raft.ReadState) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if ch, ok := rn.reads[string(rs.RequestCtx)]; ok {
		ch <- rs.Index
		delete(rn.reads, string(rs.RequestCtx))
	}
}

func (rn *raftNode) waitApplied(ctx context.Context, index uint64) error {
	ch := make(chan struct{})
	rn.mu.Lock()
	if rn.applied >= index {
		rn.mu.Unlock()
		return nil
	}
	rn.appliedAt[ch] = index
	rn.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		rn.mu.Lock()
		delete(rn.appliedAt, ch)
		rn.mu.Unlock()
		return ctx.Err()
	}
}

// leader is the leader's name as this node knows it.
func (rn *raftNode) leader() string { return idName(rn.names, rn.lead.Load()) }

func (rn *raftNode) isLeader() bool { return rn.lead.Load() == rn.id }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
