import ArgumentParser
import GeoBase
import GeoCore
import SystemIO

/// `geo distance`: WGS84 geodesic distance and bearings, for one pair or a stream of pairs.
struct DistanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "distance",
        abstract: "Geodesic distance and bearings on WGS84 (Karney 2013, accurate to 15 nm).",
        discussion: """
            geo distance LAT,LON LAT,LON prints the distance and the initial and final bearings.
            geo distance --batch reads lines 'lat1 lon1 lat2 lon2' (decimal degrees, separated by \
            spaces or tabs) from standard input and writes 'distance_m initial_bearing_deg \
            final_bearing_deg' per line at full (round-trip) precision. A bad line gets no output \
            line: it is reported on standard error with its line number, the other lines are \
            answered, and the exit status is 1.
            """
    )

    @Flag(help: "Read 'lat1 lon1 lat2 lon2' lines from standard input.")
    var batch = false

    // .allUnrecognized so that southern and western points ("-33.9,18.4") are not taken for options.
    @Argument(parsing: .allUnrecognized, help: "Start and end as LAT,LON in decimal degrees.")
    var points: [String] = []

    func validate() throws {
        if batch {
            guard points.isEmpty else { throw ValidationError("--batch reads standard input and takes no points") }
        } else {
            guard points.count == 2 else { throw ValidationError("expected two points LAT,LON LAT,LON, got \(points.count)") }
        }
    }

    func run() throws {
        if batch {
            guard DistanceBatch.run(input: 0, output: 1, error: 2) else { throw ExitCode.failure }
            return
        }
        let start: Coordinate, end: Coordinate
        do {
            start = try Coordinate(parsing: points[0])
            end = try Coordinate(parsing: points[1])
        } catch {
            throw ValidationError("\(error)")
        }
        let r = Geodesic.wgs84.inverse(from: start, to: end)
        let meters = r.distance.meters
        let human = meters < 1000 ? "\(rounded(meters, 3)) m" : "\(rounded(meters / 1000, 3)) km"
        standardOutput.line("distance:        \(human) (\(meters) m)")
        standardOutput.line("initial bearing: \(rounded(r.initialBearing.degrees, 2))° (\(r.initialBearing.degrees)°)")
        standardOutput.line("final bearing:   \(rounded(r.finalBearing.degrees, 2))° (\(r.finalBearing.degrees)°)")
    }

    private func rounded(_ x: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (x * scale).rounded() / scale
    }
}

/// The `--batch` engine: lines from `LineReader`, parsed straight from its buffer,
/// output collected in a buffer and written with `write(2)`. No allocation per line.
enum DistanceBatch {
    /// Processes every line of `input` to `output`; a bad line is reported on `error` with its
    /// number and gets no output line. Returns false when any line was bad or reading failed.
    /// - Complexity: O(bytes of input).
    static func run(input: Int32, output: Int32, error: Int32) -> Bool {
        var out = BufferedWriter(FileDescriptor(rawValue: output))
        let errors = FileDescriptor(rawValue: error)
        var badLines = 0
        let lines: Int
        do {
            lines = try LineReader.forEachLine(of: FileDescriptor(rawValue: input)) { bytes, number in
                if let message = process(bytes, into: &out) {
                    badLines += 1
                    try? errors.writeAll("geo distance: line \(number): \(message)\n")
                }
                return out.error == nil // the reader of the output may be gone, the input endless
            }
        } catch {
            out.flush()
            if let failure = out.error { StandardOutput.exit(afterFailedWrite: failure) }
            try? errors.writeAll("geo distance: \(error.about("standard input"))\n")
            return false
        }
        out.flush()
        if let failure = out.error { StandardOutput.exit(afterFailedWrite: failure) }
        if badLines > 0 {
            try? errors.writeAll("geo distance: \(badLines) of \(lines) lines were bad and got no answer\n")
        }
        return badLines == 0
    }

    /// Solves one line (`CoordinatePairLine`), appending the result; returns the error message
    /// for a bad line.
    @inline(__always)
    private static func process(_ line: UnsafeBufferPointer<UInt8>, into out: inout BufferedWriter) -> String? {
        let pair: CoordinatePairLine
        do { pair = try CoordinatePairLine(parsing: line) } catch { return error.message }
        let r = Geodesic.wgs84.inverse(fromLatitude: pair.latitude1, longitude: pair.longitude1,
                                       toLatitude: pair.latitude2, longitude: pair.longitude2)
        out.append(r.distance.meters)
        out.append(byte: 0x20)
        out.append(r.initialBearing.degrees)
        out.append(byte: 0x20)
        out.append(r.finalBearing.degrees)
        out.append(byte: 0x0A)
        return nil
    }
}
