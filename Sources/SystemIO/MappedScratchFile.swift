import Platform

/// Scratch bytes on disk, mapped into memory (`mmap(2)`, `MAP_SHARED`): for working data too
/// large to keep in anonymous memory, as osmium's `*_mmap_array` indexes and tilemaker's
/// `--store` keep node positions. The kernel writes its pages back to the file and drops them
/// under memory pressure, so what stays resident is what the caller touches, not the whole.
///
/// The file is created new (`O_EXCL`, mode 0600) in `directory` and unlinked at once: it has no
/// name to clean up, and it vanishes when the descriptor closes, also when the process is
/// killed. Growing first allocates the file's blocks (`posix_fallocate(3)` on Linux, zeros
/// written elsewhere), so a full disk is a thrown `.noSpace` error there and then, never a
/// `SIGBUS` on a later store through the mapping.
///
/// Not thread-safe: one owner grows and reads it; `bytes` is invalid after `resize(to:)`.
public final class MappedScratchFile {
    /// The mapped bytes: as many as the last `resize(to:)` asked for (empty before).
    public private(set) var bytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// The directory the file was made in (it has no name there any more).
    public let directory: String
    private var descriptor: FileDescriptor?

    /// Creates the unlinked scratch file in `directory`.
    /// - Throws: `SystemIOError` naming the directory when it cannot be written.
    public init(directory: String) throws(SystemIOError) {
        self.directory = directory
        do { descriptor = try TemporaryFile(in: directory, prefix: ".geo-scratch").unlinked() } catch {
            var named = error
            named.message = "cannot create a scratch file in"
            throw named
        }
    }

    deinit { close() }

    /// Makes the file `count` bytes long and maps all of it; the first `min(old, new)` bytes
    /// keep their contents, new bytes are zero.
    /// - Throws: `SystemIOError`: `.noSpace` when the disk or quota is full (the file keeps its
    ///   old size and mapping), else the `errno` of the failing call.
    /// - Complexity: O(count − old size) to allocate the blocks.
    public func resize(to count: Int) throws(SystemIOError) {
        guard let descriptor else { throw SystemIOError(.invalidArgument, "scratch file already closed in", path: directory) }
        precondition(count >= 0, "Broken contract: negative scratch file size")
        let old = bytes.count
        if count > old { try Self.allocate(descriptor, from: old, to: count, directory: directory) }
        unmap()
        if count < old { try descriptor.truncate(toSize: Int64(count)) }
        guard count > 0 else { return }
        let address = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor.rawValue, 0)
        guard let address, address != MAP_FAILED else { throw SystemIOError.last("cannot map a scratch file in", path: directory) }
        bytes = UnsafeMutableRawBufferPointer(start: address, count: count)
    }

    /// Unmaps and closes the file, which frees its blocks; `bytes` is then empty.
    public func close() {
        unmap()
        try? descriptor?.close()
        descriptor = nil
    }

    private func unmap() {
        if let base = bytes.baseAddress { munmap(base, bytes.count) }
        bytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    }

    /// Gives the file real blocks for bytes `old..<new`.
    private static func allocate(_ fd: FileDescriptor, from old: Int, to new: Int, directory: String) throws(SystemIOError) {
        #if os(Linux)
        let result = posix_fallocate(fd.rawValue, off_t(old), off_t(new - old)) // returns the errno, sets none
        guard result == 0 else {
            try? fd.truncate(toSize: Int64(old))
            throw SystemIOError("cannot grow a scratch file in", errno: result, path: directory)
        }
        #else
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        var offset = old
        while offset < new {
            let n = min(zeros.count, new - offset)
            do {
                try zeros.withUnsafeBytes { raw throws(SystemIOError) in
                    try fd.writeAll(UnsafeRawBufferPointer(rebasing: raw[..<n]), atOffset: Int64(offset))
                }
            } catch {
                try? fd.truncate(toSize: Int64(old))
                throw error.about(directory)
            }
            offset += n
        }
        #endif
    }
}
