public import ArgumentParser
import GeoCore
import Routing
import SystemIO
import TraceFiles

/// `geo route`: routes on a graph file written by `geo extract` (OSRM `osrm-routed`, in process).
struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Route between two points, or many pairs read from standard input (--batch).",
        discussion: """
            Batch mode reads lines 'lat1 lon1 lat2 lon2' (degrees, blanks between) and writes \
            'distance_m duration_s' for each, or 'nan nan' when there is no route. Blank lines \
            and lines starting with '#' are skipped. A bad line gets no output line: it is \
            reported on standard error with its line number, the other lines are answered, and \
            the exit status is 1.
            """
    )

    @Option(help: "A graph file written by 'geo extract'.")
    var graph: String

    // .unconditional: southern and western points (--to -10,-50) are values, not options.
    @Option(parsing: .unconditional, help: "Start as LAT,LON in degrees (latitude -90…90, longitude any, wrapped).")
    var from: String?

    @Option(parsing: .unconditional, help: "End as LAT,LON in degrees (latitude -90…90, longitude any, wrapped).")
    var to: String?

    @OptionGroup var output: PathFormatOption

    @Option(help: "What to minimise: fastest (travel time with turn costs) or shortest (length).")
    var metric = RouteOptions.Metric.fastest

    @Flag(help: "Read 'lat1 lon1 lat2 lon2' lines from standard input.")
    var batch = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Pieces of road with fewer directed edges are small (0 or more): an end snapped onto one moves to the nearest larger piece, unless both ends share it (OSRM's --small-component-size).", valueName: "edges"))
    var smallComponentSize = 1000

    func validate() throws {
        guard smallComponentSize >= 0 else { throw ValidationError("--small-component-size must be 0 or more, got \(smallComponentSize)") }
        if batch {
            guard from == nil, to == nil else { throw ValidationError("--batch reads pairs from standard input; drop --from/--to") }
        } else {
            guard let from, let to else { throw ValidationError("give --from and --to (or --batch)") }
            _ = try Coordinate.option(from, "--from")
            _ = try Coordinate.option(to, "--to")
        }
    }

    func run() throws {
        let router = Router(graph: try CommandLineFiles.graph(graph), smallComponentSize: smallComponentSize)
        let options = RouteOptions(metric: metric)
        // validate(): --batch, or both --from and --to.
        guard let from, let to else { return try runBatch(router: router, options: options) }
        let route = try router.route(from: try Coordinate(parsing: from), to: try Coordinate(parsing: to), options: options)
        standardOutput.write(try output.format.text(of: route, creator: "LocationKit geo"))
    }

    /// Answers each 'lat1 lon1 lat2 lon2' line of standard input (`RouteBatch`).
    /// - Throws: `ExitCode.failure` at the end when any line was bad.
    private func runBatch(router: Router, options: RouteOptions) throws {
        let lines = sequence(state: ()) { _ in readLine() }
        let counts = RouteBatch.answer(lines, router: router, options: options, answer: { standardOutput.write($0) }) { number, line in
            CommandLineFiles.note("route", "line \(number): expected 'lat1 lon1 lat2 lon2' in degrees, got '\(line.prefix(80))'")
        }
        if counts.bad > 0 {
            CommandLineFiles.note("route", "\(counts.bad) of \(counts.lines) lines were bad and got no answer")
            throw ExitCode.failure
        }
    }
}

extension RouteOptions.Metric: ExpressibleByArgument {}
