import Foundation
package import RoadNetwork
import TrackFiltering

/// `geo track`'s run (CONTRACT.md, `geo track`): a position source through a
/// `PositioningManager` with a live-update preset, live map matching and visits when asked,
/// what the source delivers logged as GPX in a session a rerun rejoins; the manager's events
/// written as JSON lines (``EventLines``) until `count` updates, `duration` or the source's end,
/// then the filter's drops summed up by reason (``DropDiagnostics``).
package struct LiveTrack {
    /// A preset of `LiveConfiguration.presets` by name, or "raw": no filter, no pauses.
    package var preset: String
    /// Update objects after which it ends (``EventLines/count``); nil: until the source ends.
    package var count: Int?
    /// Seconds after which the manager stops; nil: no limit.
    package var duration: Double?
    /// Loads the graph each fix is matched to live (a car or foot profile: car or pedestrian
    /// mode); nil: no matching. Called after the log session is opened.
    package var matchGraph: (() throws -> RoadGraph)?
    /// Whether visits are reported (`VisitDetector`'s defaults: 75 m, 5 minutes).
    package var visits: Bool
    /// The folder of the session's GPX log and state file (session id `geo-track`, rejoined by
    /// a rerun); nil: no log.
    package var logDirectory: String?

    /// A `matchGraph` whose profile live matching has no mode for (neither car nor foot).
    package struct UnmatchableGraph: Error {
        package var profileName: String
    }

    package init(preset: String, count: Int? = nil, duration: Double? = nil, matchGraph: (() throws -> RoadGraph)? = nil,
                 visits: Bool = false, logDirectory: String? = nil) {
        self.preset = preset
        self.count = count
        self.duration = duration
        self.matchGraph = matchGraph
        self.visits = visits
        self.logDirectory = logDirectory
    }

    /// Runs `source` until `count` updates, `duration`, its end or a failure the manager gives up
    /// on, each JSON line to `line` (then `flush`), notes for people (a rejoined log, dropped
    /// fixes, the drop summary) to `note`. A logged session is left for a rerun to rejoin.
    /// - Returns: whether it ended on a failure (the manager would not start, a refused device,
    ///   a source given up on).
    /// - Throws: ``UnmatchableGraph``; what opening the session, `matchGraph` or starting
    ///   visits throws.
    package func run(_ source: any PositionSource, line: @escaping (String) -> Void, flush: @escaping () -> Void,
                     note: @escaping (String) -> Void) async throws -> Bool {
        var source = source
        var session: BackgroundActivitySession?
        if let logDirectory {
            let dir = URL(fileURLWithPath: logDirectory, isDirectory: true)
            let s = try BackgroundActivitySession(id: "geo-track", stateDirectory: dir, logDirectory: dir, start: Date(),
                                                  configurationName: preset)
            source = s.loggingSource(source)
            session = s
            if let recovery = s.log.recovery { note("rejoined log \(s.log.url.path): \(recovery.summary)") }
        }
        let manager = PositioningManager(source: source)
        if let matchGraph {
            let graph = try matchGraph()
            guard try await manager.setMapMatching(on: graph) != nil else { throw UnmatchableGraph(profileName: graph.profileName) }
        }
        if preset == "raw" {
            await manager.setConfiguration(LiveConfiguration.default.unfiltered, pausesAutomatically: false)
        } else if let configuration = LiveConfiguration.preset(named: preset) {
            await manager.setConfiguration(configuration)
        }
        if visits { try await manager.startMonitoringVisits() }
        let events = manager.events(bufferingPolicy: .unbounded)
        let deadline = duration.map { seconds in Task { try await Task.sleep(for: .seconds(seconds)); await manager.stop() } }
        defer { deadline?.cancel() }
        guard await manager.start() else { return true }
        let lines = EventLines(count: count, withMatches: matchGraph != nil, line: line, flush: flush, note: note)
        let failed = await lines.write(events, of: manager)
        if preset != "raw" { DropDiagnostics.summary(await manager.filterReport).map(note) }
        session?.leaveForRestart() // rejoinable: a rerun continues the same file
        return failed
    }
}
