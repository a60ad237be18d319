import Synchronization
import SystemIO

/// A file served as its bytes are now, read again only after its folder saw a change
/// (`FolderChangeWatch`: one system call per request instead of opening and reading the file),
/// so a replacement (atomic rename) or a rewrite is served from the next request on.
final class WatchedFile: Sendable {
    let path: String
    private let watch: FolderChangeWatch
    /// The bytes last read and their `TileServer.contentHash`; nil until read, or after a
    /// failed read (the next request tries again).
    private let state = Mutex<(bytes: [UInt8], hash: UInt64)?>(nil)

    init(path: String) {
        self.path = path
        watch = FolderChangeWatch(folder: FileDescriptor.directory(of: path))
    }

    /// The file's bytes and their `TileServer.contentHash`.
    /// - Throws: `SystemIOError` when the file cannot be read.
    func contents() throws -> (bytes: [UInt8], hash: UInt64) {
        try state.withLock { s in
            if watch.changed() { s = nil }
            if let s { return s }
            let bytes = try FileDescriptor.readContents(of: path)
            let read = (bytes, TileServer.contentHash(bytes))
            s = read
            return read
        }
    }
}
