//! Device files: the in-memory `/dev` every `Fs` starts with, holding `null`
//! (reads end at once, writes vanish), `zero` (reads give zeros, writes
//! vanish), `random` and `urandom` (writes vanish; the WASI layer serves
//! their reads from the node's seeded stream, the one random_get draws from,
//! so a program reading them directly stays deterministic) and `antithesis`
//! (reads end at once; what is written is the Antithesis SDK's output, which
//! the WASI layer hands to `antithesis.rs`). Go's os.DevNull is `/dev/null`,
//! and Go's tests read `/dev/zero` as a file that never ends.
//!
//! `/dev` is made before any mount, so a mount of the host's `/` keeps it
//! (entries in memory win): the host's device nodes, /dev/fd or /dev/shm are
//! never visible and a guest can never read a real device. Devices have size 0 and cannot be truncated (`INVAL`, as Linux's
//! ftruncate), but opening one with O_TRUNC is fine, as on Linux.

use super::inode::{Device, Dir, Node};
use super::{Errno, Fs, Ino, ROOT};

/// Fills `buf` as a read of `device` would; returns the bytes read (0 is end of file).
fn read(device: Device, buf: &mut [u8]) -> usize {
    match device {
        Device::Null | Device::Antithesis | Device::Random => 0,
        Device::Zero => {
            buf.fill(0);
            buf.len()
        }
    }
}

impl Fs {
    /// Makes `/dev` with its devices, stamped `now_ns`.
    pub(super) fn make_devices(&mut self, now_ns: u64) -> Result<(), Errno> {
        let dev = self.inodes.alloc(Node::Dir(Dir::new(None)), now_ns);
        self.inodes.attach(ROOT, "dev".to_string(), dev)?;
        let devices = [
            ("null", Device::Null),
            ("zero", Device::Zero),
            ("random", Device::Random),
            ("urandom", Device::Random),
            ("antithesis", Device::Antithesis),
        ];
        for (name, device) in devices {
            let ino = self.inodes.alloc(Node::Device(device), now_ns);
            self.inodes.attach(dev, name.to_string(), ino)?;
        }
        Ok(())
    }

    /// The device `ino` is, or `None` for any other kind of inode.
    pub(super) fn device(&self, ino: Ino) -> Result<Option<Device>, Errno> {
        match self.inodes.get(ino)?.node {
            Node::Device(device) => Ok(Some(device)),
            _ => Ok(None),
        }
    }

    /// Whether `ino` is `/dev/antithesis`, the Antithesis SDK's output.
    pub fn is_antithesis_output(&self, ino: Ino) -> bool {
        matches!(self.device(ino), Ok(Some(Device::Antithesis)))
    }

    /// Whether `ino` is `/dev/random` or `/dev/urandom`, whose reads are the
    /// node's seeded random bytes.
    pub fn is_random_device(&self, ino: Ino) -> bool {
        matches!(self.device(ino), Ok(Some(Device::Random)))
    }

    /// A read from `ino` if it is a device.
    pub(super) fn read_device(&self, ino: Ino, buf: &mut [u8]) -> Result<Option<usize>, Errno> {
        Ok(self.device(ino)?.map(|device| read(device, buf)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::{FileType, OpenFlags};
    use super::*;

    fn dev(fs: &mut Fs, name: &str) -> Ino {
        fs.lookup(fs.root(), &format!("/dev/{name}"), true).unwrap()
    }

    #[test]
    fn dev_holds_null_zero_random_and_antithesis_as_character_devices() {
        let mut fs = Fs::new(T0);
        assert_eq!(names(&mut fs, "/dev"), [".", "..", "antithesis", "null", "random", "urandom", "zero"]);
        for name in ["random", "urandom"] {
            let device = dev(&mut fs, name);
            assert!(fs.is_random_device(device), "{name}");
        }
        let zero = dev(&mut fs, "zero");
        assert!(!fs.is_random_device(zero));
        let null = dev(&mut fs, "null");
        let st = fs.stat(null).unwrap();
        assert_eq!((st.filetype, st.size, st.nlink), (FileType::CharacterDevice, 0, 1));
        assert_eq!(FileType::CharacterDevice.wasi_code(), 2);
    }

    #[test]
    fn null_and_antithesis_read_nothing_and_swallow_writes() {
        let mut fs = Fs::new(T0);
        for name in ["null", "antithesis"] {
            let device = dev(&mut fs, name);
            assert_eq!(fs.write_at(device, 0, b"gone", T0 + 1), Ok(4), "{name}");
            let mut buf = [7; 4];
            assert_eq!(fs.read_at(device, 0, &mut buf), Ok(0), "{name}");
            assert_eq!(buf, [7; 4]);
            assert_eq!(fs.size(device), Ok(0));
            assert_eq!(fs.is_antithesis_output(device), name == "antithesis");
        }
    }

    #[test]
    fn zero_reads_zeros_forever() {
        let mut fs = Fs::new(T0);
        let zero = dev(&mut fs, "zero");
        let mut buf = [7; 16];
        assert_eq!(fs.read_at(zero, 1 << 40, &mut buf), Ok(16));
        assert_eq!(buf, [0; 16]);
        assert_eq!(fs.write_at(zero, 0, b"x", T0), Ok(1));
        assert_eq!(fs.size(zero), Ok(0));
    }

    #[test]
    fn devices_open_with_trunc_but_cannot_be_resized() {
        let mut fs = Fs::new(T0);
        let root = fs.root();
        let null = dev(&mut fs, "null");
        let trunc = OpenFlags { truncate: true, ..OpenFlags::default() };
        assert_eq!(fs.open(root, "/dev/null", trunc, true, T0), Ok(null));
        assert_eq!(fs.set_size(null, 0, T0), Err(Errno::INVAL));
    }
}
