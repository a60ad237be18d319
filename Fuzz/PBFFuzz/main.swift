// libFuzzer harness for the OSM PBF reader: any bytes either read or fail with a typed OSMError
// carrying a byte offset inside the file; never a crash, a hang or unbounded memory. The reader
// opens files, so each input goes through one scratch file on a memory file system. Built and run
// by scripts/fuzz.sh.
import Foundation
import OSMImport
import FuzzSupport

/// One scratch file per fuzzing process.
private let scratch = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
    .appendingPathComponent("locationkit-pbf-fuzz-\(getpid()).osm.pbf")

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    guard (try? bytes.write(to: scratch)) != nil else { preconditionFailure("cannot write \(scratch.path)") }
    defer { try? FileManager.default.removeItem(at: scratch) }
    let options = OSMReadOptions(parallelism: 1)
    do {
        let reader = try OSMPBFReader(url: scratch, options: options)
        var elements = 0
        let summary = try reader.read { elements += $0.count }
        precondition(summary.nodeCount + summary.wayCount + summary.relationCount == elements,
                     "the summary counts what was delivered")
    } catch let error as OSMError {
        if let offset = error.offset { precondition(offset >= 0 && offset <= size, "error offset \(offset) outside the file (\(size) bytes)") }
    } catch {
        preconditionFailure("OSMPBFReader threw an untyped error: \(error)")
    }
    return 0
}

runLibFuzzer(fuzzOneInput)
