public import MapData
public import SystemIO

/// The scratch file of a `MapFeaturePartition`: a hidden temporary file next to the archive
/// being written (`.<name>.features`, made as `AtomicFileReplacement` makes its temporary
/// files, so a stale one from a crash is replaced and links are not followed), appended with
/// `write(2)` and read back with `pread(2)`; `discard()` removes it.
public final class FeatureSpillFile: MapSpillStorage {
    private let file: AtomicFileReplacement
    private let reader: FileDescriptor
    private var size: Int64 = 0
    /// The directory the scratch file is in: where the other scratch files of the build go
    /// (`MapElementStorage.scratchFiles(in:)`).
    public var directory: String {
        guard let slash = file.temporaryPath.lastIndex(of: "/") else { return "." }
        return slash == file.temporaryPath.startIndex ? "/" : String(file.temporaryPath[..<slash])
    }

    /// Creates the scratch file next to `path`; for a special file (`/dev/stdout`) in
    /// `temporaryDirectory` instead.
    /// - Throws: `SystemIOError` when the directory cannot be written.
    public init(nextTo path: String, temporaryDirectory: String) throws {
        var scratch = try AtomicFileReplacement(replacing: path, temporarySuffix: ".features")
        if scratch.writesThrough {
            try scratch.descriptor.close()
            scratch = try AtomicFileReplacement(replacing: temporaryDirectory + "/geo-tiles", temporarySuffix: ".features")
        }
        file = scratch
        do { reader = try FileDescriptor(opening: scratch.temporaryPath) } catch {
            scratch.discard()
            throw error
        }
    }

    public func append(_ bytes: [UInt8]) throws -> Int64 {
        let offset = size
        try file.descriptor.writeAll(bytes)
        size += Int64(bytes.count)
        return offset
    }

    public func read(offset: Int64, count: Int) throws -> [UInt8] {
        let bytes = try reader.read(count: count, atOffset: offset)
        guard bytes.count == count else {
            throw TileArchiveError(.truncated, "wanted \(count) bytes at \(offset), read \(bytes.count)", path: file.temporaryPath)
        }
        return bytes
    }

    /// Closes and removes the scratch file.
    public func discard() {
        try? reader.close()
        file.discard()
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
