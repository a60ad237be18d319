// libFuzzer harness for TileArchives' MBTiles 1.3 reader (SQLite): any bytes either read or fail
// with the reader's typed TileArchiveError; every tile a readable database lists is fetched again by its address.
// SQLite opens files, so each input goes through one scratch file on a memory file system.
// Built and run by scripts/fuzz.sh.
import Foundation
import TileArchives
import FuzzSupport

/// One scratch file per fuzzing process.
private let scratch = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
    .appendingPathComponent("locationkit-mbtiles-fuzz-\(getpid()).mbtiles")

/// Tiles per input that are fetched again by address.
private let tilesChecked = 64

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    guard (try? bytes.write(to: scratch)) != nil else { preconditionFailure("cannot write \(scratch.path)") }
    defer { try? FileManager.default.removeItem(at: scratch) }
    let reader: MBTilesReader
    do { reader = try MBTilesReader(path: scratch.path) } catch { return 0 } // typed (TileArchiveError) by the signature
    _ = try? reader.metadata()
    var addresses: [(Int, Int, Int)] = []
    do {
        try reader.forEachTile { zoom, x, y, _ in
            if addresses.count < tilesChecked { addresses.append((zoom, x, y)) }
        }
    } catch {
        precondition(error is TileArchiveError, "MBTilesReader threw an untyped error: \(error)")
    }
    for (zoom, x, y) in addresses {
        _ = try? reader.tile(zoom: zoom, x: x, y: y)
    }
    return 0
}

runLibFuzzer(fuzzOneInput)
