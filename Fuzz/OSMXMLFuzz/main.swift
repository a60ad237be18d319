// libFuzzer harness for the OSM XML reader (OSMImport over XMLStreaming): any bytes either read
// or fail with a typed OSMError; never a crash, a hang or unbounded memory. Built and run by
// scripts/fuzz.sh.
import OSMImport
import FuzzSupport

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var elements = 0
    do {
        let summary = try OSMXMLReader.read(bytes: bytes) { block in
            elements += block.count
        }
        precondition(summary.nodeCount + summary.wayCount + summary.relationCount == elements,
                     "the summary counts what was delivered")
    } catch is OSMError {
        // Bad input: the typed error is the expected outcome.
    } catch {
        preconditionFailure("OSMXMLReader threw an untyped error: \(error)")
    }
    return 0
}

runLibFuzzer(fuzzOneInput)
