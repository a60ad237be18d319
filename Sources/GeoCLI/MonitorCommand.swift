import ArgumentParser
import Foundation
import GeoCore
import Monitoring
import NMEACodec
import Positioning
import SystemIO
import GeoBase

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

    @Option(parsing: .unconditional, help: "Print a dwell event after this many seconds inside (\(OptionRanges.dwell)).")
    var dwell: Double?

    func validate() throws {
        try OptionRanges.dwell.check(dwell, option: "--dwell")
    }

    func run() async throws {
        let conditions = try CommandLineFiles.regions(regions, command: "monitor")
        let positionSource = try CommandLineFiles.positionSource(source, command: "monitor")
        let monitor = try RegionMonitor(named: "geo-monitor", directory: store.map { URL(fileURLWithPath: $0, isDirectory: true) })
        for problem in monitor.recoveryProblems { Self.warn("store: \(problem); the line was dropped") }
        let dwellDuration = dwell.map { Duration.seconds($0) }
        let wanted = Set(conditions.map(\.identifier))
        for identifier in await monitor.identifiers where !wanted.contains(identifier) { try await monitor.remove(identifier) }
        var known: [String: ConditionState] = [:]
        for (identifier, condition) in conditions {
            if let record = await monitor.record(for: identifier), record.condition == condition, record.dwell == dwellDuration {
                known[identifier] = record.state // rejoined: its state stands
                continue
            }
            try await monitor.add(condition, identifier: identifier, dwell: dwellDuration)
            known[identifier] = .unknown
        }
        let out = standardOutput
        for try await event in positionSource.events() {
            guard case .location(let fix) = event else { continue }
            for e in try await monitor.process(fix) {
                if let line = Self.line(e, previous: known[e.identifier] ?? .unknown) { out.line(line) }
                if e.refinement != .inferredCrossing { known[e.identifier] = e.state }
            }
            out.flush()
        }
        let ignored = await monitor.ignoredFixes
        if ignored > 0 { Self.warn("ignored \(ignored) fix\(ignored == 1 ? "" : "es"): out of order, or without a usable accuracy (0 to 10 km)") }
    }

    /// The JSON line of an event, or nil for one the contract does not print.
    static func line(_ e: MonitorEvent, previous: ConditionState) -> String? {
        let state: String
        switch e.state {
        case .satisfied: state = "inside"
        case .unsatisfied: state = "outside"
        case .unknown, .unmonitored: return nil
        }
        var object = JSONObjectText()
        object.add("time", string: ISO8601Time.string(from: e.date, fractionDigits: 3))
        object.add("region", string: e.identifier)
        switch e.refinement {
        case .dwell?: object.add("event", string: "dwell")
        case .inferredCrossing?: object.add("event", string: e.state == .satisfied ? "enter" : "exit")
        default: object.add("event", string: previous == .unknown ? "determined" : (e.state == .satisfied ? "enter" : "exit"))
        }
        object.add("state", string: state)
        if let probability = e.probability { object.add("probability", probability, .probability) }
        if e.refinement == .inferredCrossing { object.add("inferred", json: "true") }
        return object.text
    }

    private static let warn = CommandLineFiles.note("monitor")
}
