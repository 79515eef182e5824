//! Advisory whole-file locks, BSD `flock(2)` semantics, behind
//! compat_overlay's `syscall.Flock` (docs/flock.md): per inode, held by an
//! open descriptor, shared by many or exclusive to one; a conflicting
//! request fails at once with EAGAIN (= EWOULDBLOCK on wasip1 and Linux);
//! `LOCK_UN` or closing the descriptor releases it. One table per node
//! incarnation (`Node::locks`): a crash or exit drops every lock, as the
//! kernel does for a dead process. Files are never shared between nodes, so
//! there is nothing to lock across them. No byte ranges (fcntl) and no
//! waiting: a blocking request that conflicts is EDEADLK, because the only
//! holder is this very process, frozen inside the host call.

use crate::fs::{Errno, Ino};
use std::collections::{BTreeMap, BTreeSet};

/// Who holds one inode's lock.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Held {
    Shared(BTreeSet<u32>),
    Exclusive(u32),
}

#[derive(Debug, Default)]
pub struct Locks {
    held: BTreeMap<Ino, Held>,
}

/// `flock`'s `how`.
pub const LOCK_SH: u32 = 1;
pub const LOCK_EX: u32 = 2;
pub const LOCK_NB: u32 = 4;
pub const LOCK_UN: u32 = 8;

impl Locks {
    /// `flock(fd, how)` on the file `ino` that `fd` opens. Converting a
    /// lock the descriptor holds (shared to exclusive and back) is allowed
    /// when no other descriptor is in the way, as on Linux.
    pub fn flock(&mut self, ino: Ino, fd: u32, how: u32) -> Result<(), Errno> {
        let exclusive = match how & !LOCK_NB {
            LOCK_SH => false,
            LOCK_EX => true,
            LOCK_UN => {
                self.unlock(ino, fd);
                return Ok(());
            }
            _ => return Err(Errno::INVAL),
        };
        let others = match self.held.get(&ino) {
            None => false,
            Some(Held::Exclusive(holder)) => *holder != fd,
            Some(Held::Shared(holders)) => exclusive && holders.iter().any(|h| *h != fd),
        };
        if others {
            return Err(if how & LOCK_NB != 0 { Errno::AGAIN } else { Errno::DEADLK });
        }
        match (exclusive, self.held.get_mut(&ino)) {
            (false, Some(Held::Shared(holders))) => {
                holders.insert(fd);
            }
            (false, _) => {
                self.held.insert(ino, Held::Shared(BTreeSet::from([fd])));
            }
            (true, _) => {
                self.held.insert(ino, Held::Exclusive(fd));
            }
        }
        Ok(())
    }

    fn unlock(&mut self, ino: Ino, fd: u32) {
        let empty = match self.held.get_mut(&ino) {
            Some(Held::Exclusive(holder)) => *holder == fd,
            Some(Held::Shared(holders)) => holders.remove(&fd) && holders.is_empty(),
            None => false,
        };
        if empty {
            self.held.remove(&ino);
        }
    }

    /// `fd` was closed: the lock it held on `ino` goes.
    pub fn closed(&mut self, ino: Ino, fd: u32) {
        self.unlock(ino, fd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Ino = Ino(7);

    #[test]
    fn an_exclusive_lock_excludes_other_descriptors_until_unlocked() {
        let mut l = Locks::default();
        assert_eq!(l.flock(F, 3, LOCK_EX | LOCK_NB), Ok(()));
        assert_eq!(l.flock(F, 4, LOCK_EX | LOCK_NB), Err(Errno::AGAIN));
        assert_eq!(l.flock(F, 4, LOCK_SH | LOCK_NB), Err(Errno::AGAIN));
        assert_eq!(l.flock(F, 4, LOCK_EX), Err(Errno::DEADLK), "nobody else could release it");
        assert_eq!(l.flock(F, 3, LOCK_EX), Ok(()), "relocking one's own lock");
        assert_eq!(l.flock(F, 3, LOCK_UN), Ok(()));
        assert_eq!(l.flock(F, 4, LOCK_EX | LOCK_NB), Ok(()));
    }

    #[test]
    fn shared_locks_share_and_block_an_exclusive_one() {
        let mut l = Locks::default();
        assert_eq!(l.flock(F, 3, LOCK_SH), Ok(()));
        assert_eq!(l.flock(F, 4, LOCK_SH), Ok(()));
        assert_eq!(l.flock(F, 3, LOCK_EX | LOCK_NB), Err(Errno::AGAIN), "4 still shares it");
        l.closed(F, 4);
        assert_eq!(l.flock(F, 3, LOCK_EX | LOCK_NB), Ok(()), "the last sharer converts");
    }

    #[test]
    fn closing_the_descriptor_releases_its_lock_only() {
        let mut l = Locks::default();
        assert_eq!(l.flock(F, 3, LOCK_EX), Ok(()));
        l.closed(F, 4);
        assert_eq!(l.flock(F, 5, LOCK_EX | LOCK_NB), Err(Errno::AGAIN));
        l.closed(F, 3);
        assert_eq!(l.flock(F, 5, LOCK_EX | LOCK_NB), Ok(()));
        assert_eq!(l.flock(F, 5, 0), Err(Errno::INVAL));
    }
}
