//! WASI preview1 error numbers (`errno`), the error type of the simulated file
//! system and of the WASI layer above it.
//!
//! Only the numbering and names live here. Which call returns which error is
//! decided by the operations themselves, and host I/O errors are translated
//! where the host is read (`host_mount.rs`).

/// Declares the enum and its name table from one list, so a code and its name
/// can never disagree.
macro_rules! errnos {
    ($($(#[$doc:meta])* $name:ident = $code:literal,)*) => {
        /// A WASI preview1 `errno`; the discriminant is the code the guest sees.
        #[repr(u16)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Errno {
            $($(#[$doc])* $name = $code,)*
        }

        impl Errno {
            /// The WASI name without its `E` prefix, e.g. `"NOENT"`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Errno::$name => stringify!($name),)*
                }
            }
        }
    };
}

errnos! {
    /// `E2BIG`: argument list too long (`2BIG` is not a Rust identifier).
    TOOBIG = 1,
    ACCES = 2,
    ADDRINUSE = 3,
    ADDRNOTAVAIL = 4,
    AFNOSUPPORT = 5,
    AGAIN = 6,
    ALREADY = 7,
    BADF = 8,
    BADMSG = 9,
    BUSY = 10,
    CANCELED = 11,
    CHILD = 12,
    CONNABORTED = 13,
    CONNREFUSED = 14,
    CONNRESET = 15,
    DEADLK = 16,
    DESTADDRREQ = 17,
    DOM = 18,
    DQUOT = 19,
    EXIST = 20,
    FAULT = 21,
    FBIG = 22,
    HOSTUNREACH = 23,
    IDRM = 24,
    ILSEQ = 25,
    INPROGRESS = 26,
    INTR = 27,
    INVAL = 28,
    IO = 29,
    ISCONN = 30,
    ISDIR = 31,
    LOOP = 32,
    MFILE = 33,
    MLINK = 34,
    MSGSIZE = 35,
    MULTIHOP = 36,
    NAMETOOLONG = 37,
    NETDOWN = 38,
    NETRESET = 39,
    NETUNREACH = 40,
    NFILE = 41,
    NOBUFS = 42,
    NODEV = 43,
    NOENT = 44,
    NOEXEC = 45,
    NOLCK = 46,
    NOLINK = 47,
    NOMEM = 48,
    NOMSG = 49,
    NOPROTOOPT = 50,
    NOSPC = 51,
    NOSYS = 52,
    NOTCONN = 53,
    NOTDIR = 54,
    NOTEMPTY = 55,
    NOTRECOVERABLE = 56,
    NOTSOCK = 57,
    NOTSUP = 58,
    NOTTY = 59,
    NXIO = 60,
    OVERFLOW = 61,
    OWNERDEAD = 62,
    PERM = 63,
    PIPE = 64,
    PROTO = 65,
    PROTONOSUPPORT = 66,
    PROTOTYPE = 67,
    RANGE = 68,
    ROFS = 69,
    SPIPE = 70,
    SRCH = 71,
    STALE = 72,
    TIMEDOUT = 73,
    TXTBSY = 74,
    XDEV = 75,
    NOTCAPABLE = 76,
}

impl Errno {
    /// The numeric code written to the guest.
    pub fn code(self) -> u16 {
        self as u16
    }
}

/// Lets WASI shims that return raw codes use `?` on file system results.
impl From<Errno> for u16 {
    fn from(errno: Errno) -> u16 {
        errno.code()
    }
}

impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "E{} ({})", self.name(), self.code())
    }
}

impl std::error::Error for Errno {}

#[cfg(test)]
mod tests {
    use super::Errno;

    #[test]
    fn codes_match_wasi_preview1() {
        let expected = [
            (Errno::TOOBIG, 1),
            (Errno::ACCES, 2),
            (Errno::AGAIN, 6),
            (Errno::BADF, 8),
            (Errno::EXIST, 20),
            (Errno::FBIG, 22),
            (Errno::INVAL, 28),
            (Errno::IO, 29),
            (Errno::ISDIR, 31),
            (Errno::LOOP, 32),
            (Errno::NAMETOOLONG, 37),
            (Errno::NOENT, 44),
            (Errno::NOSYS, 52),
            (Errno::NOTDIR, 54),
            (Errno::NOTEMPTY, 55),
            (Errno::NOTSOCK, 57),
            (Errno::PERM, 63),
            (Errno::SPIPE, 70),
            (Errno::XDEV, 75),
            (Errno::NOTCAPABLE, 76),
        ];
        for (errno, code) in expected {
            assert_eq!(errno.code(), code, "{errno:?}");
        }
    }

    #[test]
    fn names_and_display() {
        assert_eq!(Errno::NOENT.name(), "NOENT");
        assert_eq!(Errno::NOTEMPTY.to_string(), "ENOTEMPTY (55)");
        assert_eq!(u16::from(Errno::LOOP), 32);
    }
}
