// libFuzzer harness for GeoCore's GeoJSON (RFC 7946) codec: any bytes either decode or fail with
// a typed GeoCoreError; what decodes encodes and decodes back to the same value. Built and run by
// scripts/fuzz.sh.
import Foundation
import GeoCore
import FuzzSupport

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    let decoded: GeoJSON
    do {
        decoded = try GeoJSON(data: bytes)
    } catch {
        return 0 // typed (GeoCoreError) by the signature: the expected outcome for bad input
    }
    let again = try? GeoJSON(data: decoded.encoded())
    precondition(again == decoded, "GeoJSON round trip changed the value")
    return 0
}

runLibFuzzer(fuzzOneInput)
