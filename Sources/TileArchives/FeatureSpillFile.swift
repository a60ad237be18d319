public import MapData
public import SystemIO

/// The scratch file of a `MapFeaturePartition`: a hidden `TemporaryFile` of a unique name
/// (`.geo-tiles-<pid>-<n>.features`) next to the archive being written, appended with
/// `write(2)` and read back with `pread(2)`; `discard()` removes it, and so does SIGINT or
/// SIGTERM (`TemporaryFiles`).
public final class FeatureSpillFile: MapSpillStorage {
    private let file: TemporaryFile
    private var size: Int64 = 0
    /// The directory the scratch file is in: where the other scratch files of the build go
    /// (`MapElementStorage.scratchFiles(in:)`).
    public let directory: String

    /// Creates the scratch file next to `path`; for a special file (`/dev/stdout`, a FIFO) in
    /// `temporaryDirectory` instead, found without opening it
    /// (`AtomicFileReplacement.writesThrough(_:)`).
    /// - Throws: `SystemIOError` when the directory cannot be written.
    public init(nextTo path: String, temporaryDirectory: String) throws {
        directory = try AtomicFileReplacement.writesThrough(path) ? temporaryDirectory : FileDescriptor.directory(of: path)
        file = try TemporaryFile(in: directory, prefix: ".geo-tiles", suffix: ".features")
    }

    public func append(_ bytes: [UInt8]) throws -> Int64 {
        let offset = size
        try file.descriptor.writeAll(bytes)
        size += Int64(bytes.count)
        return offset
    }

    public func read(offset: Int64, count: Int) throws -> [UInt8] {
        let bytes = try file.descriptor.read(count: count, atOffset: offset)
        guard bytes.count == count else {
            throw TileArchiveError(.truncated, "wanted \(count) bytes at \(offset), read \(bytes.count)", path: file.path)
        }
        return bytes
    }

    /// Closes and removes the scratch file.
    public func discard() {
        file.remove()
    }
}

/// The node and way stores' scratch files (`MapElementStorage`): SystemIO's memory-mapped,
/// unlinked temporary files.
extension MappedScratchFile: MapScratchFile {}

extension MapElementStorage {
    /// Stores that move to memory-mapped scratch files in `directory` past `memoryLimit`
    /// bytes each.
    public static func scratchFiles(in directory: String, memoryLimit: Int = MapElementStorage.defaultMemoryLimit) -> MapElementStorage {
        MapElementStorage(memoryLimit: memoryLimit) { try MappedScratchFile(directory: directory) }
    }
}
