// libFuzzer harness for MapData's PMTiles v3 reader over bytes in memory (`[UInt8]` is a
// `TileArchiveBytes`): any bytes either read or fail with a typed MapDataError whose byte offset
// lies inside the archive; every entry a directory lists is looked up by its tile address and
// read, and its id converts to z/x/y and back. Built and run by scripts/fuzz.sh.
import MapData
import FuzzSupport

/// Entries per input that are looked up (a directory's run lengths can address millions).
private let entriesChecked = 64

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let reader = try PMTilesReader(bytes)
        _ = try? reader.metadata()
        for entry in try reader.entries().prefix(entriesChecked) {
            _ = try? reader.tileBytes(entry)
            guard let (zoom, x, y) = try? PMTiles.tile(id: entry.tileID) else { continue }
            precondition(PMTiles.tileID(zoom: zoom, x: x, y: y) == entry.tileID, "tile id ↔ z/x/y round trip")
            _ = try? reader.tile(zoom: zoom, x: x, y: y)
        }
    } catch {
        if let offset = error.offset { precondition(offset >= 0 && offset <= size, "error offset \(offset) outside the archive (\(size) bytes)") }
    }
    return 0
}

runLibFuzzer(fuzzOneInput)
