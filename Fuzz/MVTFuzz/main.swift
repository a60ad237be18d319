// libFuzzer harness for MapData's Mapbox Vector Tile (MVT 2.1) decoder: any bytes either decode or
// fail with a typed MapDataError; a decoded tile's geometries and properties are all readable
// (decoding checked every index), and it encodes and decodes back to the same tile. Input with
// gzip's magic is gunzipped first, as a reader of archives does with a compressed tile.
// Built and run by scripts/fuzz.sh.
import MapData
import ZlibCompression
import FuzzSupport

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes.starts(with: [0x1F, 0x8B]) {
        guard let inflated = try? Gzip.decompress(bytes, limit: VectorTile.defaultInflateLimit) else { return 0 }
        bytes = inflated
    }
    let tile: VectorTile
    do { tile = try VectorTile(decoding: bytes) } catch { return 0 } // typed (MapDataError) by the signature
    for layer in tile.layers {
        for feature in layer.features {
            _ = try? layer.geometry(of: feature)
            _ = layer.properties(of: feature)
        }
        _ = try? layer.mapFeatures(zoom: 14, x: 8_500, y: 5_600)
    }
    let again = try? VectorTile(decoding: tile.encoded())
    precondition(again == tile, "a decoded tile encodes and decodes to the same tile")
    return 0
}

runLibFuzzer(fuzzOneInput)
