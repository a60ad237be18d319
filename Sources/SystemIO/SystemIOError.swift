public import GeoBase
import GeoCore
import Platform

/// The one error type of SystemIO (STYLE.md §3.7): a failed system call with its `errno` and
/// the path or address it was about.
public struct SystemIOError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<SystemIOError>

    public var code: Code
    /// What was being done, e.g. "cannot open".
    public var message: String
    /// The POSIX error number, or 0 when the error did not come from a system call.
    public var errno: Int32
    /// The file path or `host:port` the operation was about, if any.
    public var path: String?

    public init(_ code: Code, _ message: String, errno: Int32 = 0, path: String? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.path = path
    }

    /// The error of a failed system call, from its `errno`.
    init(_ message: String, errno: Int32, path: String? = nil) {
        self.init(Code(errno: errno), message, errno: errno, path: path)
    }

    /// The error of the system call that just failed, from the current `errno`.
    static func last(_ message: String, path: String? = nil) -> SystemIOError {
        SystemIOError(message, errno: currentErrno(), path: path)
    }

    /// The same error naming `path`, unless it names one already.
    public func about(_ path: String?) -> SystemIOError {
        var named = self
        if named.path == nil { named.path = path }
        return named
    }

    /// "cannot open /a/b: No such file or directory".
    public var description: String {
        var text = message
        if let path { text += " \(path)" }
        if errno != 0 { text += ": " + String(cString: strerror(errno)) }
        return text
    }
}

extension ErrorCode where Domain == SystemIOError {
    /// No such file, directory or host (`ENOENT`, `ENOTDIR`, a name that does not resolve).
    public static var notFound: Self { Self("not found") }
    /// Not allowed (`EACCES`, `EPERM`, `EROFS`).
    public static var permissionDenied: Self { Self("permission denied") }
    /// The file exists and was to be created new (`EEXIST`).
    public static var alreadyExists: Self { Self("already exists") }
    /// The device or quota is full, or the file would pass its size limit (`ENOSPC`,
    /// `EDQUOT`, `EFBIG`).
    public static var noSpace: Self { Self("no space left") }
    /// The reading end of a pipe or socket is gone (`EPIPE`).
    public static var brokenPipe: Self { Self("broken pipe") }
    /// A low-level I/O error (`EIO`).
    public static var ioFailure: Self { Self("I/O failure") }
    /// A TCP connection could not be made or was reset (`ECONNREFUSED`, `ETIMEDOUT`,
    /// `ECONNRESET`, unreachable networks).
    public static var connectionFailed: Self { Self("connection failed") }
    /// In use: a lock held elsewhere (`EWOULDBLOCK`), an address taken (`EADDRINUSE`), `EBUSY`.
    public static var busy: Self { Self("busy") }
    /// A bad parameter (`EINVAL`, an unsupported baud rate).
    public static var invalidArgument: Self { Self("invalid argument") }
    /// A symbolic link where a file was to be written (`ELOOP`, or refused by
    /// `AtomicFileReplacement`'s rules).
    public static var symbolicLink: Self { Self("symbolic link") }
    /// A file larger than the caller reads whole (`FileDescriptor.readContents(of:limit:)`).
    public static var tooLarge: Self { Self("too large") }
    /// Any other `errno`.
    public static var other: Self { Self("system error") }

    /// The code of a failed system call's `errno`.
    public init(errno: Int32) {
        switch errno {
        case ENOENT, ENOTDIR: self = .notFound
        case EACCES, EPERM, EROFS: self = .permissionDenied
        case EEXIST: self = .alreadyExists
        case ENOSPC, EDQUOT, EFBIG: self = .noSpace
        case EPIPE: self = .brokenPipe
        case EIO: self = .ioFailure
        case ECONNREFUSED, ECONNRESET, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL: self = .connectionFailed
        case EWOULDBLOCK, EADDRINUSE, EBUSY: self = .busy
        case EINVAL: self = .invalidArgument
        case ELOOP: self = .symbolicLink
        default: self = .other
        }
    }
}

/// The calling thread's `errno` (inside `SystemIOError` the name is its property).
@inline(__always)
func currentErrno() -> Int32 { errno }

extension LineReadError {
    /// The error as a program reading `name` ("standard input") tells it, in SystemIO's wording:
    /// "cannot read line N of standard input: reason" for a read error, else "line N is … in
    /// standard input" (`geo distance --batch`).
    public func described(reading name: String) -> String {
        guard let io = underlying as? SystemIOError else { return "\(self) in \(name)" }
        return "\(SystemIOError(io.code, "cannot read line \(line) of", errno: io.errno, path: name))"
    }
}
