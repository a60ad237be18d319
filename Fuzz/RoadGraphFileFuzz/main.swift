// libFuzzer harness for the road-graph file decoder (RoadNetwork's GraphFile): any bytes either
// decode to a graph that passes its invariant checks or fail with a typed RoadNetworkError.
// Random bytes almost never carry a valid CRC-32, so inputs whose first byte is odd get a header
// that matches their payload (length and CRC recomputed) and reach the column decoders.
// Built and run by scripts/fuzz.sh.
import RoadNetwork
import ZlibCompression
import FuzzSupport

/// The file header (GraphFile): magic (4), version (4), payload length (8, LE), CRC-32 (4, LE), 4 spare.
private let headerSize = 24

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    guard size > 0 else { return 0 }
    var bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] & 1 == 1, bytes.count >= headerSize {
        let payload = bytes.count - headerSize
        let crc = bytes.withUnsafeBytes { Zlib.crc32(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        withUnsafeBytes(of: UInt64(payload).littleEndian) { bytes.replaceSubrange(8..<16, with: $0) }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(16..<20, with: $0) }
    }
    do {
        let graph = try RoadGraph(serialized: bytes)
        _ = graph.nodeCount
        let again = try RoadGraph(serialized: graph.serialized())
        precondition(again.nodeCount == graph.nodeCount && again.edgeCount == graph.edgeCount, "graph file round trip changed the graph")
    } catch {
        // typed (RoadNetworkError) by the signature: the expected outcome for bad input
    }
    return 0
}

runLibFuzzer(fuzzOneInput)
