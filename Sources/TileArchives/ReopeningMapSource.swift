public import MapData
import Synchronization
import SystemIO
import Platform

/// Which file a path names right now: device, inode, size and modification time (`stat(2)`).
/// A file replaced by an atomic rename has another inode; one rewritten in place another
/// modification time or size.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64, inode: UInt64, size: Int64
    /// Modification time, nanoseconds since 1970.
    let modified: Int64
    let isDirectory: Bool

    /// nil when nothing is at `path` (or it cannot be asked).
    init?(path: String) {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        size = Int64(s.st_size)
        #if canImport(Darwin)
        modified = Int64(s.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(s.st_mtimespec.tv_nsec)
        #else
        modified = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
        #endif
        isDirectory = (s.st_mode & S_IFMT) == S_IFDIR
    }
}

/// A map source file that is opened again when it was replaced (atomic rename) or rewritten:
/// each `current()` asks whether the file's folder saw anything (`FolderChangeWatch`, one
/// system call) and only then `stat(2)`s the file; when the file changed, it opens the new one.
/// Callers keep the source they got for the whole request, so requests in flight finish on the
/// old file. A replacement that does not open (half written, damaged) leaves the last good
/// source in service and is reported through `note` once. A folder of tiles is read as it is
/// and never reopened.
public final class ReopeningMapSource: Sendable {
    public let path: String
    private let note: @Sendable (String) -> Void
    /// nil for a folder of tiles.
    private let watch: FolderChangeWatch?
    private let state: Mutex<(source: any MapSource, identity: FileIdentity?, refused: FileIdentity?, generation: Int)>
    /// Calls reading `watch` right now: while one is, its events may be read but not yet counted.
    private let asking = Atomic<Int>(0)
    /// How many times `watch` said its folder changed.
    private let changes = Atomic<Int>(0)
    /// `changes` as it was when the file was last compared with the one in service (written under `state`'s lock).
    private let compared = Atomic<Int>(0)

    /// Opens `path` (`MapSources.open`).
    /// - Parameter note: gets a line when a replacement cannot be opened.
    public init(path: String, note: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.path = path
        self.note = note
        let identity = FileIdentity(path: path)
        watch = identity?.isDirectory == true ? nil : FolderChangeWatch(folder: FileDescriptor.directory(of: path))
        state = Mutex((try MapSources.open(path), identity, nil, 0))
    }

    /// How many times the file was opened again since the first opening: what was drawn from
    /// the source before a change of this number is stale (the raster tile cache's key).
    public var generation: Int { state.withLock { $0.generation } }

    /// The source as the file is now.
    public func current() -> any MapSource { versioned().source }

    /// The source as the file is now, with its `generation` read together with it (so what is
    /// made from the source can be kept under that generation).
    ///
    /// The file is compared (`stat(2)`) only when the folder changed since the last comparison,
    /// or while another call is reading the folder's events: that call may hold the event of a
    /// replacement made before this call began, so a request that starts after a replacement
    /// never gets the old file — without a lock round the system call (its contention cost
    /// more than the call).
    public func versioned() -> (source: any MapSource, generation: Int) {
        guard let watch else { return state.withLock { ($0.source, $0.generation) } }
        asking.add(1, ordering: .sequentiallyConsistent)
        if watch.changed() { changes.add(1, ordering: .sequentiallyConsistent) }
        asking.subtract(1, ordering: .sequentiallyConsistent)
        let seen = changes.load(ordering: .sequentiallyConsistent)
        let quiet = asking.load(ordering: .sequentiallyConsistent) == 0 && seen == compared.load(ordering: .sequentiallyConsistent)
        let (source, generation) = state.withLock { ($0.source, $0.generation) }
        guard !quiet, let now = FileIdentity(path: path), !now.isDirectory else { return (source, generation) }
        let stale = state.withLock { s in
            let stale = now != s.identity && now != s.refused
            if !stale { compared.store(max(compared.load(ordering: .sequentiallyConsistent), seen), ordering: .sequentiallyConsistent) }
            return stale
        }
        guard stale else { return state.withLock { ($0.source, $0.generation) } }
        do {
            let reopened = try MapSources.open(path)
            return state.withLock { s in
                s = (reopened, now, nil, s.generation + 1)
                compared.store(max(compared.load(ordering: .sequentiallyConsistent), seen), ordering: .sequentiallyConsistent)
                return (reopened, s.generation)
            }
        } catch {
            state.withLock { s in
                s.refused = now
                compared.store(max(compared.load(ordering: .sequentiallyConsistent), seen), ordering: .sequentiallyConsistent)
            }
            note("\(path): changed, but the new file does not open (\(error)); still serving the previous one")
            return state.withLock { ($0.source, $0.generation) }
        }
    }
}
