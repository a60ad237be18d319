// libFuzzer harness for the OSM PBF reader: any bytes either read or fail with a typed OSMError
// carrying a byte offset inside the file; never a crash, a hang or unbounded memory. And the
// counting path (`OSMFileReader.statistics`, what `geo osm info` runs, which decodes blocks into
// counts only) ends as a full read of the same file does: the same summary and node extent, or
// the same error. The reader opens files, so each input goes through one scratch file on a
// memory file system. Built and run by scripts/fuzz.sh.
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
    let counted = outcome { try OSMFileReader.statistics(url: scratch, options: options) }
    let read = outcome {
        var statistics = OSMFileStatistics()
        statistics.summary = try OSMFileReader.read(url: scratch, options: options) { block in
            for node in block.nodes { statistics.nodeExtent.add(latitudeE7: node.latitudeE7, longitudeE7: node.longitudeE7) }
        }
        return statistics
    }
    precondition(counted == read, "statistics \(counted) but a full read \(read)")
    return 0
}

/// How a read ends: its statistics, or the typed error it throws.
private func outcome(_ read: () throws -> OSMFileStatistics) -> Result<OSMFileStatistics, OSMError> {
    do { return .success(try read()) } catch let error as OSMError { return .failure(error) } catch {
        preconditionFailure("OSMFileReader threw an untyped error: \(error)")
    }
}

runLibFuzzer(fuzzOneInput)
