//! Running a closure in a forked copy of this process (`fork()`), for work
//! that continues from a state too costly to rebuild: a `cause` future
//! forked from the world at its moment instead of replaying the prefix.
//! The child runs the closure on its copy-on-write memory, sends back the
//! bytes it returns through a pipe and exits without running destructors or
//! exit handlers (they belong to the parent). Only the calling thread
//! exists in the child: the closure must not wait on another thread of the
//! parent or on a lock one of them may hold (the world restarts its own
//! watchdog, `World::forked`); the engine's own locks are held across the
//! fork (`seedfall_engine::runtime::fork_locks`), so they are free in it. Where `fork()` does not exist `available`
//! is false and the caller replays instead.

use std::io;

/// Whether this platform can fork.
pub const AVAILABLE: bool = cfg!(unix);

/// Runs `work` in a forked child and returns what it returned. An error if
/// the child could not be made, or died without answering (a signal, a
/// panic: the message says which).
#[cfg(unix)]
pub fn in_child(work: impl FnOnce() -> Vec<u8>) -> io::Result<Vec<u8>> {
    use std::fs::File;
    use std::io::{Read, Write};
    use std::os::fd::FromRawFd;

    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid array of two descriptors for pipe(2) to fill.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe(2) succeeded, so both descriptors are open and owned here only.
    let (mut reader, writer) = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
    // The engine's locks are held across the fork, so none is left locked in
    // the child by a thread that does not exist there.
    let pid = seedfall_engine::runtime::fork_locks::around_fork(|| {
        // SAFETY: the child only runs `work` on its own copy of this thread's
        // state and leaves with `_exit`; see the module header for what `work` must not do.
        unsafe { libc::fork() }
    });
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        seedfall_engine::runtime::fork_locks::mark_child();
        drop(reader);
        let mut writer = writer;
        let status = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
            Ok(bytes) => i32::from(writer.write_all(&bytes).is_err()),
            Err(_) => 3,
        };
        // SAFETY: leaving the child without the parent's exit handlers or destructors.
        unsafe { libc::_exit(status) }
    }
    drop(writer);
    let mut answer = Vec::new();
    let read = reader.read_to_end(&mut answer);
    let mut status = 0;
    // SAFETY: `pid` is our child; waitpid fills `status`.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    read?;
    if libc::WIFSIGNALED(status) {
        return Err(io::Error::other(format!("the forked child died of signal {}", libc::WTERMSIG(status))));
    }
    match libc::WEXITSTATUS(status) {
        0 => Ok(answer),
        3 => Err(io::Error::other("the forked child panicked")),
        code => Err(io::Error::other(format!("the forked child failed (exit status {code})"))),
    }
}

#[cfg(not(unix))]
pub fn in_child(_work: impl FnOnce() -> Vec<u8>) -> io::Result<Vec<u8>> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "fork() does not exist on this platform"))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_child_sees_the_parents_state_and_its_changes_stay_there() {
        let mut state = vec![1u8, 2, 3];
        let answer = in_child(|| {
            state.push(4);
            state.clone()
        })
        .unwrap();
        assert_eq!(answer, [1, 2, 3, 4]);
        assert_eq!(state, [1, 2, 3], "copy on write: the parent's memory is its own");
        let big = in_child(|| vec![7u8; 1 << 20]).unwrap();
        assert_eq!(big.len(), 1 << 20, "more than a pipe holds at once");
    }

    #[test]
    fn a_child_that_panics_or_dies_is_an_error_not_a_hang() {
        let panicked = in_child(|| panic!("boom")).unwrap_err();
        assert!(panicked.to_string().contains("panicked"), "{panicked}");
        // SAFETY: raising a signal in the child only.
        let killed = in_child(|| unsafe {
            libc::raise(libc::SIGKILL);
            Vec::new()
        })
        .unwrap_err();
        assert!(killed.to_string().contains("signal 9"), "{killed}");
    }
}
