import Platform

/// Replaces a file all at once: the new contents go to a temporary file in the same directory
/// (so the rename stays on one file system), which is synced and renamed over the old one.
/// A crash or an error at any point leaves either the complete old file or the complete new one.
///
/// What `path` names decides how it is written (the final component is examined with
/// `lstat(2)`, the directories before it are the user's to name):
/// - **missing, or a regular file**: replaced atomically as above; an existing file's
///   permission bits are kept. The temporary file is created new (`O_EXCL`, after removing a
///   stale one), so a link planted under the temporary name is never followed.
/// - **a FIFO, a device, a socket**, or **a symbolic link to one** (`/dev/null`, a link to a
///   FIFO): written through: opened for writing as it is, nothing renamed, since
///   renaming over it would replace the special file instead of feeding it.
/// - **a name for one of this process's open descriptors** (`/dev/stdout`, `/dev/stderr`,
///   `/dev/fd/N`, `/proc/self/fd/N`): written through that descriptor (duplicated), whatever
///   it is open on, so `geo … -o /dev/stdout > file` writes into the shell's redirection as
///   `cat` would; the user named the descriptor, not a path to follow.
/// - **a symbolic link to a regular file, or a dangling one**: refused (`.symbolicLink`).
///   Replacing the link would silently cut it; writing through it would create or rewrite a
///   file in a directory the user did not name, the classic symlink attack on a shared
///   directory. Name the file itself instead.
///
/// The temporary file is registered with `TemporaryFiles` until `commit()` or `discard()`, so
/// a process ended by SIGINT or SIGTERM meanwhile removes it (`TemporaryFiles.removeOnTermination()`).
///
/// ```swift
/// let replacement = try AtomicFileReplacement(replacing: path)
/// do {
///     try replacement.descriptor.writeAll(bytes)
///     try replacement.commit()
///     try replacement.descriptor.close()
/// } catch {
///     replacement.discard()
///     throw error
/// }
/// ```
public struct AtomicFileReplacement: Sendable {
    /// The file being replaced.
    public let path: String
    /// The file `descriptor` writes: the temporary file, `.<name><suffix>` next to `path`, or
    /// `path` itself when ``writesThrough``.
    public let temporaryPath: String
    /// Whether `path` is a special file written in place (no temporary file, no rename).
    public let writesThrough: Bool
    /// Open for writing on the temporary file; after `commit()` it is the file at `path`,
    /// still open, and the caller closes it.
    public let descriptor: FileDescriptor

    /// Creates the temporary file next to `path`, close-on-exec, or opens a special file for
    /// writing through (see the type's rules).
    /// - Parameter temporarySuffix: appended to the hidden temporary name.
    /// - Throws: `SystemIOError`: `.symbolicLink` for a link to a regular file or a dangling
    ///   one, else the `errno` of the failing call (the directory cannot be written …).
    public init(replacing path: String, temporarySuffix: String = ".tmp") throws(SystemIOError) {
        self.path = path
        let target = try Self.target(path)
        switch target {
        case .descriptor(let inherited):
            temporaryPath = path
            writesThrough = true
            descriptor = try inherited.duplicate()
            return
        case .special:
            temporaryPath = path
            writesThrough = true
            descriptor = try FileDescriptor(opening: path, .writeOnly, options: [.noControllingTerminal])
            return
        case .regular:
            break
        }
        var entry = stat()
        let exists = stat(path, &entry) == 0
        let directory = FileDescriptor.directory(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        temporaryPath = (directory == "." && !path.hasPrefix("./") ? "" : directory == "/" ? "/" : directory + "/") + "." + name + temporarySuffix
        writesThrough = false
        unlink(temporaryPath) // a stale one from a crash; O_EXCL below refuses anything else
        do {
            descriptor = try FileDescriptor(opening: temporaryPath, .writeOnly, options: [.create, .exclusive],
                                            permissions: exists ? UInt16(entry.st_mode & 0o7777) : 0o644)
        } catch {
            // Named as the user named it: the hidden temporary name means nothing to them.
            var named = error
            named.message = "cannot write"
            named.path = path
            throw named
        }
        if exists { _ = fchmod(descriptor.rawValue, entry.st_mode & 0o7777) } // the umask may have cut bits
        TemporaryFiles.register(temporaryPath)
    }

    /// What a path names, by the type's rules.
    private enum Target {
        /// One of this process's open descriptors (`/dev/stdout`).
        case descriptor(FileDescriptor)
        /// A FIFO, device or socket, or a symbolic link to one.
        case special
        /// Missing, or a regular file.
        case regular
    }

    /// Classifies `path` without opening it (opening a FIFO would wait for, and then be seen
    /// by, its reader).
    /// - Throws: `SystemIOError.symbolicLink` for a link to a regular file or a dangling one.
    private static func target(_ path: String) throws(SystemIOError) -> Target {
        if let inherited = openDescriptor(named: path) { return .descriptor(inherited) }
        var entry = stat()
        guard lstat(path, &entry) == 0 else { return .regular }
        if entry.st_mode & S_IFMT == S_IFLNK {
            var target = stat()
            guard stat(path, &target) == 0, target.st_mode & S_IFMT != S_IFREG else {
                throw SystemIOError(.symbolicLink, "refusing to follow or replace the symbolic link", path: path)
            }
            entry = target
        }
        return entry.st_mode & S_IFMT == S_IFREG ? .regular : .special
    }

    /// Whether `init(replacing: path)` would write through (a special file, a descriptor's
    /// name) rather than replace, found without opening anything: a caller that makes its
    /// scratch files beside the output asks this first, so a FIFO is opened once, by the
    /// writer that feeds it.
    /// - Throws: `SystemIOError.symbolicLink` as `init` does.
    public static func writesThrough(_ path: String) throws(SystemIOError) -> Bool {
        if case .regular = try target(path) { return false }
        return true
    }

    /// The open descriptor `path` names, or nil: `/dev/stdout` (1), `/dev/stderr` (2),
    /// `/dev/fd/N` or `/proc/self/fd/N` for a descriptor this process has open.
    private static func openDescriptor(named path: String) -> FileDescriptor? {
        let number: Int32? = switch path {
        case "/dev/stdout": 1
        case "/dev/stderr": 2
        case _ where path.hasPrefix("/dev/fd/"): Int32(path.dropFirst("/dev/fd/".count))
        case _ where path.hasPrefix("/proc/self/fd/"): Int32(path.dropFirst("/proc/self/fd/".count))
        default: nil
        }
        guard let number, number >= 0, fcntl(number, F_GETFD) != -1 else { return nil }
        return FileDescriptor(rawValue: number)
    }

    /// Renames the temporary file over `path`, first syncing it to stable storage when
    /// `durable`, and afterwards the directory entry. Nothing to do when writing through.
    /// - Throws: `SystemIOError`; the old file is then untouched (call `discard()`).
    public func commit(durable: Bool = true) throws(SystemIOError) {
        if writesThrough { return }
        if durable { try descriptor.sync() }
        guard rename(temporaryPath, path) == 0 else { throw .last("cannot replace", path: path) }
        TemporaryFiles.unregister(temporaryPath)
        if durable { FileDescriptor.syncDirectory(containing: path) }
    }

    /// Closes and removes the temporary file, leaving `path` as it was (a special file written
    /// through is only closed).
    public func discard() {
        try? descriptor.close()
        if !writesThrough {
            unlink(temporaryPath)
            TemporaryFiles.unregister(temporaryPath)
        }
    }

    /// Replaces the file at `path` with `bytes` (created if missing), durably.
    /// - Throws: `SystemIOError` naming `path`; the old file is then intact.
    public static func write(_ bytes: [UInt8], to path: String) throws(SystemIOError) {
        let replacement = try AtomicFileReplacement(replacing: path)
        do {
            try replacement.descriptor.writeAll(bytes)
            try replacement.commit()
        } catch {
            replacement.discard()
            throw error.about(path)
        }
        try replacement.descriptor.close()
    }
}
