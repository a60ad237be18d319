import Platform
public import GeoBase
import Synchronization

/// An open file descriptor: a file, pipe, socket or device. A plain value over the `Int32`
/// (like swift-system's `FileDescriptor`): copies share the descriptor, and whoever opened it
/// closes it once with `close()`.
///
/// Every descriptor SystemIO opens is close-on-exec (`O_CLOEXEC`, `SOCK_CLOEXEC`, `accept4`,
/// `F_DUPFD_CLOEXEC`), so a child process never inherits a file, a socket or a device.
/// Reads and writes retry `EINTR`; `writeAll` also retries short writes.
public struct FileDescriptor: Hashable, Sendable {
    /// The POSIX descriptor number.
    public let rawValue: Int32

    /// Wraps a descriptor opened elsewhere (the caller keeps the close-on-exec promise).
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Descriptor 0. Never closed by SystemIO's own types.
    public static let standardInput = FileDescriptor(rawValue: 0)
    /// Descriptor 1.
    public static let standardOutput = FileDescriptor(rawValue: 1)
    /// Descriptor 2.
    public static let standardError = FileDescriptor(rawValue: 2)

    /// How a file is opened for access.
    public struct Access: Hashable, Sendable {
        let flags: Int32
        public static let readOnly = Access(flags: O_RDONLY)
        public static let writeOnly = Access(flags: O_WRONLY)
        public static let readWrite = Access(flags: O_RDWR)
    }

    /// Extra `open(2)` behaviour.
    public struct Options: OptionSet, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Create the file if missing (`O_CREAT`).
        public static let create = Options(rawValue: O_CREAT)
        /// With `.create`: fail with `.alreadyExists` if it exists (`O_EXCL`).
        public static let exclusive = Options(rawValue: O_EXCL)
        /// Empty an existing file (`O_TRUNC`).
        public static let truncate = Options(rawValue: O_TRUNC)
        /// Every write goes to the end (`O_APPEND`).
        public static let append = Options(rawValue: O_APPEND)
        /// A terminal device does not become the controlling terminal (`O_NOCTTY`).
        public static let noControllingTerminal = Options(rawValue: O_NOCTTY)
    }

    /// Opens `path`, close-on-exec.
    /// - Parameter permissions: mode bits of a created file (before the umask).
    /// - Throws: `SystemIOError` with the path and `errno` (`.notFound`, `.permissionDenied`,
    ///   `.alreadyExists` …).
    public init(opening path: String, _ access: Access = .readOnly, options: Options = [],
                permissions: UInt16 = 0o644) throws(SystemIOError) {
        while true {
            let fd = systemOpen(path, access.flags | options.rawValue | O_CLOEXEC, mode_t(permissions))
            if fd >= 0 {
                rawValue = fd
                return
            }
            if currentErrno() != EINTR { throw .last("cannot open", path: path) }
        }
    }

    /// Creates or truncates `path` for writing (mode 0644), close-on-exec.
    public static func create(_ path: String) throws(SystemIOError) -> FileDescriptor {
        try FileDescriptor(opening: path, .writeOnly, options: [.create, .truncate])
    }

    /// A pipe, both ends close-on-exec.
    public static func pipe() throws(SystemIOError) -> (read: FileDescriptor, write: FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        guard systemPipe2(&fds, O_CLOEXEC) == 0 else { throw .last("cannot create a pipe") }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    /// The whole contents of the file at `path`.
    /// - Complexity: O(file size).
    public static func readContents(of path: String) throws(SystemIOError) -> [UInt8] {
        let fd = try FileDescriptor(opening: path)
        defer { try? fd.close() }
        return try fd.readToEnd(limit: .max)
    }

    /// The whole file at `path`, nil when there is none — missing, or a directory: the `read`
    /// of the loaders of optional files (`WorldBase(folder:read:)`, `NotoFonts.faces`, PROJ's
    /// geoid grid), which look for a file in several places.
    /// - Throws: `SystemIOError` naming `path` when it is there but cannot be read.
    /// - Complexity: O(file size).
    public static func readContentsIfPresent(of path: String) throws(SystemIOError) -> [UInt8]? {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return nil }
        do throws(SystemIOError) {
            return try readContents(of: path)
        } catch {
            if error.code == .notFound { return nil }
            throw error
        }
    }

    /// The whole file at `path`, refused when it holds more than `limit` bytes: a regular file
    /// by its size before any byte is read, anything else (a pipe, a device) once `limit` + 1
    /// bytes came — never a silent first `limit` bytes of a larger file.
    /// - Throws: `SystemIOError` naming `path`: `.tooLarge` past the limit, or what opening or
    ///   reading throws.
    public static func readContents(of path: String, limit: Int) throws(SystemIOError) -> [UInt8] {
        let fd = try FileDescriptor(opening: path)
        defer { try? fd.close() }
        var s = stat()
        if fstat(fd.rawValue, &s) == 0, (s.st_mode & S_IFMT) == S_IFREG, Int64(s.st_size) > Int64(limit) {
            throw SystemIOError(.tooLarge, "the file holds \(s.st_size) bytes, more than \(limit)", path: path)
        }
        let bytes = try fd.readToEnd(limit: limit == .max ? limit : limit + 1)
        guard bytes.count <= limit else { throw SystemIOError(.tooLarge, "more than \(limit) bytes", path: path) }
        return bytes
    }

    /// Reads from the current position to the end of the file or `limit` bytes, whichever comes
    /// first, 64 KiB at a time: memory follows what the file holds, never `limit` (a size a
    /// header announces), and a stream without end (`/dev/zero`) stops at `limit`.
    /// - Complexity: O(bytes read).
    public func readToEnd(limit: Int) throws(SystemIOError) -> [UInt8] {
        var source = self
        do { return try source.read(upTo: limit) } catch let error as SystemIOError { throw error } catch {
            preconditionFailure("Broken contract: FileDescriptor.read(into:) throws only SystemIOError, got \(error)")
        }
    }

    /// Reads up to `buffer.count` bytes at the current position; 0 means end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemIOError) -> Int {
        while true {
            let n = systemRead(rawValue, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if currentErrno() != EINTR { throw .last("read failed") }
        }
    }

    /// Reads up to `buffer.count` bytes at `offset` (`pread(2)`), leaving the position alone;
    /// 0 means end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, atOffset offset: Int64) throws(SystemIOError) -> Int {
        while true {
            let n = pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if currentErrno() != EINTR { throw .last("read failed") }
        }
    }

    /// Reads `count` bytes at `offset`, fewer only at end of file.
    /// - Complexity: O(count).
    public func read(count: Int, atOffset offset: Int64) throws(SystemIOError) -> [UInt8] {
        var failure: SystemIOError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            while initialized < count {
                let rest = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[initialized...])
                do throws(SystemIOError) {
                    let n = try read(into: rest, atOffset: offset + Int64(initialized))
                    if n == 0 { return }
                    initialized += n
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes all of `bytes`, retrying short writes and `EINTR`.
    ///
    /// A write to a pipe or socket whose reader is gone raises `SIGPIPE`, which ends the
    /// process unless it is ignored; with it ignored the error is `.brokenPipe`, and for a
    /// pipe or FIFO ``BrokenPipe`` remembers it.
    /// - Throws: `SystemIOError` (`.noSpace`, `.brokenPipe`, `.ioFailure` …).
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemIOError) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = systemWrite(rawValue, next, left)
            if n < 0 {
                if currentErrno() == EINTR { continue }
                let error = SystemIOError.last("write failed")
                if error.code == .brokenPipe, !isSocket { BrokenPipe.record() }
                throw error
            }
            next += n
            left -= n
        }
    }

    /// Whether the descriptor is a socket (`fstat`, `S_IFSOCK`).
    private var isSocket: Bool {
        var info = stat()
        return fstat(rawValue, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// Writes all of `bytes` at `offset` (`pwrite(2)`), leaving the position alone, retrying
    /// short writes and `EINTR`; the file grows when the bytes reach past its end.
    /// - Throws: `SystemIOError` (`.noSpace`, `.ioFailure` …).
    public func writeAll(_ bytes: UnsafeRawBufferPointer, atOffset offset: Int64) throws(SystemIOError) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        var position = offset
        while left > 0 {
            let n = pwrite(rawValue, next, left, off_t(position))
            if n < 0 {
                if currentErrno() == EINTR { continue }
                throw .last("write failed")
            }
            next += n
            left -= n
            position += Int64(n)
        }
    }

    /// Writes all of `bytes`.
    public func writeAll(_ bytes: [UInt8]) throws(SystemIOError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemIOError) in try writeAll(raw) } }.get()
    }

    /// Writes the UTF-8 of `text`.
    public func writeAll(_ text: String) throws(SystemIOError) {
        var text = text
        try text.withUTF8 { utf8 in Result { () throws(SystemIOError) in try writeAll(UnsafeRawBufferPointer(utf8)) } }.get()
    }

    /// One `send(2)` on a socket without `SIGPIPE` (`MSG_NOSIGNAL`); returns how many bytes
    /// went out.
    /// - Throws: `SystemIOError` (`.brokenPipe`, `.connectionFailed` …).
    public func send(_ bytes: UnsafeRawBufferPointer) throws(SystemIOError) -> Int {
        while true {
            let n = systemSend(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return n }
            if currentErrno() != EINTR { throw .last("send failed") }
        }
    }

    /// Forces written data to stable storage (`fsync(2)`).
    public func sync() throws(SystemIOError) {
        guard fsync(rawValue) == 0 else { throw .last("cannot sync") }
    }

    /// Takes the exclusive advisory lock (`flock(2)`, `LOCK_EX | LOCK_NB`) without waiting.
    /// - Returns: false when another open file description holds it.
    public func tryLockExclusive() throws(SystemIOError) -> Bool {
        while true {
            if flock(rawValue, LOCK_EX | LOCK_NB) == 0 { return true }
            let e = currentErrno()
            if e == EWOULDBLOCK { return false }
            if e != EINTR { throw SystemIOError("cannot lock", errno: e) }
        }
    }

    /// Takes the exclusive advisory lock, waiting up to `patience` (every 10 ms) while it is
    /// busy. A child process being spawned anywhere in this process shares every open file
    /// description from `fork` until `exec` (`O_CLOEXEC` closes it only at `exec`), so a lock
    /// just released here can look held for that window — it reached 0.1 s in the test suite on
    /// a loaded machine. (POSIX record locks are not inherited, but any `close` of the same file
    /// in this process, a reader's, would silently release them.)
    /// - Returns: false when another open file description still holds it after `patience`.
    public func lockExclusive(patience: Duration = .seconds(2)) throws(SystemIOError) -> Bool {
        let attempts = max(1, Int(patience / .milliseconds(10)))
        for attempt in 0..<attempts {
            if try tryLockExclusive() { return true }
            if attempt < attempts - 1 { usleep(10_000) }
        }
        return false
    }

    /// The size of the file, bytes (`fstat(2)`).
    public func size() throws(SystemIOError) -> Int64 {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw .last("cannot stat") }
        return Int64(info.st_size)
    }

    /// Cuts (or extends with zeros) the file to `size` bytes (`ftruncate(2)`).
    public func truncate(toSize size: Int64) throws(SystemIOError) {
        while ftruncate(rawValue, off_t(size)) != 0 {
            if currentErrno() != EINTR { throw .last("cannot truncate") }
        }
    }

    /// A second descriptor for the same open file, close-on-exec (`F_DUPFD_CLOEXEC`).
    public func duplicate() throws(SystemIOError) -> FileDescriptor {
        let fd = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw .last("cannot duplicate descriptor") }
        return FileDescriptor(rawValue: fd)
    }

    /// Closes the descriptor. Not retried on `EINTR` (on Linux the descriptor is gone anyway).
    public func close() throws(SystemIOError) {
        guard systemClose(rawValue) == 0 else { throw .last("close failed") }
    }

    /// Makes a created or renamed entry of `path`'s directory durable (`fsync(2)` on the
    /// directory); best effort, since some file systems refuse to sync a directory.
    public static func syncDirectory(containing path: String) {
        guard let fd = try? FileDescriptor(opening: directory(of: path)) else { return }
        _ = fsync(fd.rawValue)
        try? fd.close()
    }

    /// Creates the folder `path` and the missing folders above it (as `mkdir -p`), mode 0777
    /// less the umask; nothing to do when it exists.
    /// - Throws: `SystemIOError` naming the first part that cannot be made: "cannot create
    ///   the folder x/y: Not a directory" when a file stands in the way, else its `errno`.
    public static func createDirectories(_ path: String) throws(SystemIOError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
            if mkdir(prefix, 0o777) == 0 { continue }
            let failure = currentErrno()
            var info = stat()
            if failure == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
            throw SystemIOError("cannot create the folder", errno: failure == EEXIST ? ENOTDIR : failure, path: prefix)
        }
    }

    /// The files under the folder `path`, recursively, as paths relative to it in byte order.
    /// Hidden entries (a name starting with ".") and what is under them are left out; a
    /// symbolic link counts as what it points to, but links to folders are not followed.
    /// - Throws: `SystemIOError` naming `path` when it is not a folder, or the first folder
    ///   under it that cannot be listed.
    public static func files(under path: String) throws(SystemIOError) -> [String] {
        var found: [String] = []
        func list(_ relative: String) throws(SystemIOError) {
            let folder = relative.isEmpty ? path : path + "/" + relative
            guard let stream = opendir(folder) else { throw .last("cannot list the folder", path: folder) }
            defer { closedir(stream) }
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard !name.hasPrefix(".") else { continue }
                let child = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard lstat(path + "/" + child, &info) == 0 else { continue } // removed meanwhile
                if info.st_mode & S_IFMT == S_IFDIR {
                    try list(child)
                } else if stat(path + "/" + child, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                    found.append(child)
                }
            }
        }
        try list("")
        return found.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The directory part of `path` ("." for a bare name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

// The POSIX calls under names that `FileDescriptor`'s methods do not shadow.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int { read(fd, p, n) }
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
private func systemSend(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int, _ flags: Int32) -> Int { send(fd, p, n, flags) }
#if os(Linux)
/// `pipe2(2)`, which Glibc's Swift module hides behind `_GNU_SOURCE`; it sets close-on-exec
/// atomically, where `pipe` + `fcntl` would leave a window for a concurrent `fork`.
@_silgen_name("pipe2")
private func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
#else
/// Darwin has no `pipe2`: `pipe`, then close-on-exec on both ends (ChildProcess spawns with
/// `POSIX_SPAWN_CLOEXEC_DEFAULT` there, which covers the window between the two calls).
private func systemPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32 {
    guard pipe(fds) == 0 else { return -1 }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    return 0
}
#endif
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }

/// Whether a `writeAll` of this process has met a pipe or FIFO whose reader is gone (`EPIPE`;
/// sockets do not count). With `SIGPIPE` ignored, a library may meet it deep inside a writer
/// that wraps the error in its own type (an OSM writer's `-o /dev/stdout | head`); a command
/// line tool asks here to end as quietly as a Unix filter all the same.
public enum BrokenPipe {
    private static let occurred = Atomic<Bool>(false)

    /// True once a write to a pipe or FIFO failed with `EPIPE`.
    public static var hasOccurred: Bool { occurred.load(ordering: .relaxed) }

    static func record() { occurred.store(true, ordering: .relaxed) }
}

/// A descriptor reads as a byte source from its current position.
extension FileDescriptor: ByteSource {}
