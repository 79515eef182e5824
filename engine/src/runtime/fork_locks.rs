//! The engine's process-wide locks, held across a `fork()`. Only the forking
//! thread exists in the child, so a lock another thread held at that moment
//! would stay locked there forever: a forked `explore` future that dropped a
//! memory (the reservation pool) while another lane was booting one hung.
//! Holding every such lock while forking means each is free in both
//! processes once the guards drop. It knows the engine's locks only; the
//! caller (`seedfall_host::fork`) must not hold any of them already. For the
//! same reason a child must not hand work to a thread pool (its threads
//! stayed in the parent): the child marks itself (`mark_child`) and the
//! code that would use one asks `in_child` first.

use std::sync::atomic::{AtomicBool, Ordering};

static IN_CHILD: AtomicBool = AtomicBool::new(false);

/// This process is a forked child: from now on work runs on this thread.
pub fn mark_child() {
    IN_CHILD.store(true, Ordering::Relaxed);
}

/// Whether this process is a forked child (`mark_child`).
pub fn in_child() -> bool {
    IN_CHILD.load(Ordering::Relaxed)
}

/// For the tests that show a child hanging: whether child `pid` exited 0
/// within `within` (else it is killed and reaped).
#[cfg(unix)]
pub fn child_exited_cleanly(pid: libc::pid_t, within: std::time::Duration) -> bool {
    let started = std::time::Instant::now();
    let mut status = 0;
    loop {
        // SAFETY: `pid` is the caller's child; waitpid fills `status`.
        if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
            return libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
        }
        if started.elapsed() > within {
            // SAFETY: killing and reaping the caller's hung child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Runs `fork` (the call that forks) with the lazy compile lock, the
/// reservation pool, the list of loaded code and this thread's interrupt slot
/// locked, in that order (no other code holds two of them at once, so the
/// order cannot deadlock).
pub fn around_fork<R>(fork: impl FnOnce() -> R) -> R {
    #[cfg(target_os = "linux")]
    let _compile = super::lazy::lock_compile();
    let _pool = super::reservation::lock();
    let _loaded = super::code::lock_loaded();
    super::interrupt::with_this_thread_locked(fork)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Forks (with `fork`) while another thread holds the reservation pool
    /// for a moment; the child takes the pool and exits 0. Whether the child
    /// finished within 5 s (it is killed otherwise).
    fn child_gets_the_pool(fork: fn() -> libc::pid_t) -> bool {
        let (locked, is_locked) = mpsc::channel();
        let holder = std::thread::spawn(move || {
            let _pool = super::super::reservation::lock();
            locked.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(200));
        });
        is_locked.recv().unwrap();
        let pid = fork();
        if pid == 0 {
            drop(super::super::reservation::lock());
            // SAFETY: leaving the child at once, without the parent's handlers.
            unsafe { libc::_exit(0) }
        }
        holder.join().unwrap();
        child_exited_cleanly(pid, Duration::from_secs(5))
    }

    #[test]
    fn a_lock_another_thread_held_is_free_in_a_child_forked_around_it() {
        fn bare_fork() -> libc::pid_t {
            // SAFETY: the child only takes a lock and calls `_exit`.
            unsafe { libc::fork() }
        }
        assert!(child_gets_the_pool(|| around_fork(bare_fork)));
        assert!(!child_gets_the_pool(bare_fork), "a bare fork leaves the child a locked pool");
    }
}
