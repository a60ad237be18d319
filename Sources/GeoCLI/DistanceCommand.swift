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
            _ = try (Coordinate.option(points[0], "start"), Coordinate.option(points[1], "end"))
        }
    }

    func run() throws {
        if batch { return try solveBatch() }
        let solution = Geodesic.wgs84.inverse(from: try Coordinate(parsing: points[0]), to: try Coordinate(parsing: points[1]))
        for line in solution.summaryLines { standardOutput.line(line) }
    }

    /// `--batch`: standard input to standard output through `Geodesic.solveInverseLines`, each
    /// bad line and then their count on standard error.
    /// - Throws: `ExitCode.failure` when a line was bad or reading failed.
    private func solveBatch() throws {
        var input = FileSource(.standardInput), output = standardOutput
        do {
            let (lines, bad) = try Geodesic.wgs84.solveInverseLines(from: &input, to: &output) { number, error in
                CommandLineFiles.note("distance", "line \(number): \(error.message)")
            }
            standardOutput.flush()
            guard bad > 0 else { return }
            CommandLineFiles.note("distance", "\(bad) of \(lines) lines were bad and got no answer")
        } catch let error as LineReadError {
            standardOutput.flush()
            CommandLineFiles.note("distance", error.described(reading: "standard input"))
        }
        throw ExitCode.failure
    }
}
