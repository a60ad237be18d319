import ArgumentParser
import Foundation
import GeoCore
import NMEACodec
import Positioning

/// `geo track`: runs a position source through the PositioningManager and prints one JSON
/// object per event.
struct TrackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Print live positions from a source, one JSON object per event.",
        discussion: """
            Sources: gpsd://127.0.0.1:2947, nmea:///dev/ttyUSB0?baud=9600, nmea+tcp://HOST:PORT, \
            nmea:FILE (nmea:- for standard input), gpx:FILE?speed=10 (speed=max: as fast as \
            possible; accuracy=M for points without one, default 10), route:LINE.geojson?speed=13.9&interval=1&noise=3, device: (gpsd if it \
            answers, else $LOCATIONKIT_NMEA_DEVICE).
            Events: {"event":"update","time":…,"lat":…,"lon":…,"accuracy":…,"speed":…,"course":…,"stationary":false}, \
            {"event":"update",…,"stationary":true} when updates pause, {"event":"lost","time":…} (the \
            last fix's time, null before the first), \
            {"event":"error","code":…,"message":…}. Accuracy is the 68 % radius in metres.
            """
    )

    @Option(help: "The position source URI.")
    var source: String = "device:"

    @Option(help: "Live-update preset: \(LiveConfiguration.presets.map(\.name).joined(separator: ", ")); 'raw' turns filtering and pauses off.")
    var preset: String = "default"

    @Option(help: "Stop after this many updates.")
    var count: Int?

    @Option(name: .customLong("for"), help: "Stop after this many seconds.")
    var duration: Double?

    @Option(help: "Log what the source delivers as GPX into this directory (a session that a rerun rejoins).")
    var log: String?

    func validate() throws {
        if preset != "raw", LiveConfiguration.preset(named: preset) == nil {
            throw ValidationError("unknown preset '\(preset)'")
        }
        if let count, count <= 0 { throw ValidationError("--count must be positive") }
        if let duration, !(duration > 0) || Duration(seconds: duration) == nil { throw ValidationError("--for must be positive") }
    }

    func run() async throws {
        var positionSource: any PositionSource
        do {
            positionSource = try PositionSourceURI.source(source, startDate: Date())
        } catch {
            throw ValidationError("\(error)")
        }
        var session: BackgroundActivitySession?
        if let log {
            let dir = URL(fileURLWithPath: log, isDirectory: true)
            let s = try BackgroundActivitySession(id: "geo-track", stateDirectory: dir, logDirectory: dir, start: Date(),
                                                  configurationName: preset)
            positionSource = s.loggingSource(positionSource)
            session = s
        }
        let manager = PositioningManager(source: positionSource)
        if preset == "raw" {
            await manager.setConfiguration(LiveConfiguration.default.unfiltered, pausesAutomatically: false)
        } else if let configuration = LiveConfiguration.preset(named: preset) {
            await manager.setConfiguration(configuration)
        }
        let events = manager.events(bufferingPolicy: .unbounded)
        let deadline = duration.map { seconds in Task { try await Task.sleep(for: .seconds(seconds)); await manager.stop() } }
        defer { deadline?.cancel() }
        guard await manager.start() else { throw ExitCode.failure }
        var out = JSONLines()
        var updates = 0, failed = false
        var last: Location?
        loop: for await event in events {
            switch event {
            case .updated(let location):
                last = location
                out.write(Self.update(location, stationary: false))
                updates += 1
                if let count, updates >= count { break loop }
            case .paused(let location):
                last = location
                out.write(Self.update(location, stationary: true))
            case .lost:
                // The time of the last fix, if any: a lost position has no time of its own.
                out.write(#"{"event":"lost","time":\#(last.map { JSONLines.string(NMEAFix.isoString($0.timestamp)) } ?? "null")}"#)
            case .failed(let error):
                out.write(#"{"event":"error","code":\#(JSONLines.string("\(error.code)")),"message":\#(JSONLines.string(error.message))}"#)
                failed = !(await manager.isRunning)
            case .stopped:
                break loop
            case .resumed, .authorizationChanged:
                break
            }
            out.flush()
        }
        out.flush()
        await manager.stop()
        if let session { session.log.abandon() } // rejoinable: a rerun continues the same file
        if failed { throw ExitCode.failure }
    }

    /// One update as the JSON object the command documents.
    static func update(_ l: Location, stationary: Bool) -> String {
        func number(_ v: Double?) -> String { v.map { $0.isFinite ? "\($0)" : "null" } ?? "null" }
        return #"{"event":"update","time":\#(JSONLines.string(NMEAFix.isoString(l.timestamp))),"lat":\#(l.coordinate.latitude),"#
            + #""lon":\#(l.coordinate.longitude),"accuracy":\#(number(l.horizontalAccuracy?.meters)),"#
            + #""speed":\#(number(l.speed?.metersPerSecond)),"course":\#(number(l.course?.degrees)),"stationary":\#(stationary)}"#
    }
}
