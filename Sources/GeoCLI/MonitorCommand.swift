import ArgumentParser
import Platform
import Monitoring
import Positioning
import SystemIO

/// `geo monitor`: decides regions from a position source and prints one JSON line per event.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Watch regions from a position source, one JSON line per event.",
        discussion: """
            Regions: GeoJSON (Polygon and MultiPolygon features, either winding, holes; Point \
            features with a 'radius' property in metres) or an Osmosis .poly file. A region's name \
            is its 'identifier' property, else its id, else its 'id' property, else its 'name' property.
            Every fix the source delivers is evaluated (a parked device is decided too). The \
            probability of being inside comes from the fix's 68 % accuracy; a region is entered at \
            0.9 and left at 0.1, confirmed over 2 fixes and 20 s when every fix is decisive (0.99 / \
            0.01), else over 60 s; a single decisive fix decides when fixes are 20 s or more apart.
            Events: {"time":…,"region":…,"event":"enter","state":"inside","probability":…}; \
            "exit" / "outside"; "determined" for the first decision of a region (its state \
            "inside" or "outside"); "dwell" after --dwell seconds inside; enter and exit with \
            "inferred":true when the straight path between two sparse fixes crossed a region. \
            Nothing is printed for a region before its first decision.
            With --store DIR the regions and their states persist in DIR (created if missing): a \
            rerun, also after a kill -9, rejoins them; damaged store lines are reported on \
            standard error and the rest kept.
            """
    )

    @Option(help: "The regions: a GeoJSON file or an Osmosis .poly file.")
    var regions: String

    @Option(help: "The position source URI (as for 'geo track').")
    var source: String = "device:"

    @Option(help: "Keep the regions and their states in this directory, rejoined by a rerun.")
    var store: String?

    @Option(parsing: .unconditional, help: "Print a dwell event after this many seconds inside (\(RegionMonitor.dwellTimes)).")
    var dwell: Double?

    func validate() throws {
        try RegionMonitor.dwellTimes.check(dwell, option: "--dwell")
    }

    func run() async throws {
        let conditions = try CommandLineFiles.reading(regions) { try RegionsFile.conditions(atPath: regions) }
        let positionSource = try CommandLineFiles.positionSource(source)
        let monitor = try RegionMonitor(named: "geo-monitor", directory: store.map { URL(fileURLWithPath: $0, isDirectory: true) })
        for problem in monitor.recoveryProblems { Self.warn("store: \(problem); the line was dropped") }
        let ignored = try await RegionWatch.run(monitor, conditions: conditions, dwell: dwell.map { Duration.seconds($0) }, source: positionSource,
                                                line: standardOutput.line, flush: standardOutput.flush)
        if ignored > 0 { Self.warn("ignored \(ignored) fix\(ignored == 1 ? "" : "es"): out of order, or without a usable accuracy (0 to 10 km)") }
    }

    private static let warn = CommandLineFiles.note("monitor")
}
