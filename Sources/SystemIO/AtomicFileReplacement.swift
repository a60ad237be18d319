#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file all at once: the new contents go to a temporary file in the same directory
/// (so the rename stays on one file system), which is synced and renamed over the old one.
/// A crash or an error at any point leaves either the complete old file or the complete new one.
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
    /// The temporary file, `.<name><suffix>` next to `path`.
    public let temporaryPath: String
    /// Open for writing on the temporary file; after `commit()` it is the file at `path`,
    /// still open, and the caller closes it.
    public let descriptor: FileDescriptor

    /// Creates (or empties) the temporary file next to `path`, close-on-exec.
    /// - Parameter temporarySuffix: appended to the hidden temporary name.
    /// - Throws: `SystemIOError` when the directory cannot be written.
    public init(replacing path: String, temporarySuffix: String = ".tmp") throws(SystemIOError) {
        let directory = FileDescriptor.directory(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        self.path = path
        temporaryPath = (directory == "." && !path.hasPrefix("./") ? "" : directory == "/" ? "/" : directory + "/") + "." + name + temporarySuffix
        descriptor = try FileDescriptor.create(temporaryPath)
    }

    /// Renames the temporary file over `path`, first syncing it to stable storage when
    /// `durable`, and afterwards the directory entry.
    /// - Throws: `SystemIOError`; the old file is then untouched (call `discard()`).
    public func commit(durable: Bool = true) throws(SystemIOError) {
        if durable { try descriptor.sync() }
        guard rename(temporaryPath, path) == 0 else { throw .last("cannot replace", path: path) }
        if durable { FileDescriptor.syncDirectory(containing: path) }
    }

    /// Closes and removes the temporary file, leaving `path` as it was.
    public func discard() {
        try? descriptor.close()
        unlink(temporaryPath)
    }

    /// Replaces the file at `path` with `bytes` (created if missing), durably.
    /// - Throws: `SystemIOError`; the old file is then intact.
    public static func write(_ bytes: [UInt8], to path: String) throws(SystemIOError) {
        let replacement = try AtomicFileReplacement(replacing: path)
        do {
            try replacement.descriptor.writeAll(bytes)
            try replacement.commit()
        } catch {
            replacement.discard()
            throw error
        }
        try replacement.descriptor.close()
    }
}
