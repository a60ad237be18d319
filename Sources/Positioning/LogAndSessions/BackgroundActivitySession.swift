public import Foundation
import GeoCore
import Synchronization
import SystemIO

/// A persisted positioning session that a restarted process rejoins (Core Location's
/// `CLBackgroundActivitySession`, DESIGN.md §1): hold it while positions should be recorded,
/// `invalidate()` it when done.
///
/// The session lives in a small JSON state file, `<stateDirectory>/<id>.session.json`
/// (`BackgroundActivitySession.State`). Creating a session with an identifier whose state file
/// says it is running *rejoins* it: the same `PositionLog` file is continued, as a new
/// `<trkseg>`. Otherwise a new session starts, with a new log file in `logDirectory` named
/// after the id and the injected start time.
///
/// Rules that hold:
/// - Releasing the last reference invalidates the session, as in Core Location (seed 001: hold
///   it in a property, not a local variable); an error doing so is lost, so call `invalidate()`
///   to see it. A process that dies (a crash, a kill) releases nothing: its session stays
///   persisted and the next process rejoins it by id. A process that exits on purpose and
///   wants the next run to rejoin (`geo track --log`) calls `leaveForRestart()` first.
/// - `invalidate()` first marks the state file `invalidated` (an atomic rename), then completes
///   the log (`</trkseg></trk></gpx>`, synced), then removes the state file. A crash in between
///   leaves an `invalidated` state, which the next `init` treats as ended and replaces.
/// - After `invalidate()`, `attach(to:)` throws `PositioningError.sessionInvalid` and the log
///   refuses appends with it; a logging source still passes fixes on and records the error.
/// - A failed write to the log never stops positioning; it is kept in `lastLoggingError`.
/// - One live object per session: a second object for the same id (in this or another
///   process) fails with `PositioningError.io`, because the log file is locked.
/// - The log is a complete GPX document after every fix it acknowledged; rejoining repairs
///   a torn final write, and the rejoined `log.recovery` says how many points it dropped.
/// - A rejoined session writes only its own log, `PositionLog.fileName(sessionID:start:)` in
///   `logDirectory`: a state file whose `logPath` names anything else (edited, or written with
///   another log directory) is refused with `PositioningError.sessionInvalid`.
/// - Durability is the log's (`PositionLog.Options.sync`); the state file is replaced
///   atomically but not fsynced, so after a power loss a session may start afresh instead of
///   being rejoined.
public final class BackgroundActivitySession: Sendable {
    /// What the state file holds.
    public struct State: Codable, Sendable, Hashable {
        /// The session identifier.
        public var id: String
        /// When the session began (injected, usually the first fix's time).
        public var start: Date
        /// The absolute path of the session's GPX log.
        public var logPath: String
        /// The `LiveConfiguration` the session records with, by name, if any.
        public var configurationName: String?
        /// Whether `invalidate()` was called.
        public var invalidated: Bool
    }

    /// The session identifier.
    public let id: String
    /// Whether this object rejoined a session a previous process started.
    public let isRejoined: Bool
    /// The state as created or rejoined.
    public let state: State
    /// The session's position log.
    public let log: PositionLog
    private let stateURL: URL

    private struct Mutable {
        var invalidated = false
        /// `leaveForRestart()` was called: releasing the object leaves the session persisted.
        var leftForRestart = false
        var attachments: [Task<Void, Never>] = []
        var lastLoggingError: PositioningError?
    }
    private let mutable = Mutex(Mutable())

    /// The state file of session `id` in `stateDirectory`.
    public static func stateURL(id: String, stateDirectory: URL) -> URL {
        let safe = String(id.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
        return stateDirectory.appendingPathComponent("\(safe).session.json")
    }

    /// The log file of session `id` started at `start`: `PositionLog.fileName(sessionID:start:)`
    /// in `logDirectory`. A rejoined session's recorded `logPath` must be exactly this file,
    /// so a tampered state file cannot make the process rewrite a file elsewhere.
    static func logURL(id: String, start: Date, logDirectory: URL) -> URL {
        logDirectory.appendingPathComponent(PositionLog.fileName(sessionID: id, start: start)).standardizedFileURL
    }

    /// Rejoins the running session `id`, or starts it.
    /// - Parameters:
    ///   - id: the identifier a restarted process uses to find the session again.
    ///   - stateDirectory: where the state file lives (created if missing).
    ///   - logDirectory: where a new session's log goes (a rejoined session keeps its file).
    ///   - start: the start time of a new session, for its state and log file name; ignored
    ///     when rejoining. Inject it (e.g. the first fix's time): the session never reads the
    ///     clock.
    ///   - configurationName: recorded in a new session's state.
    ///   - logOptions: how the log is written.
    /// - Throws: `PositioningError.sessionInvalid` when the state file exists but cannot be
    ///   decoded, belongs to another id, or names a log other than this session's own file in
    ///   `logDirectory`; `.io` when a file cannot be written.
    public init(id: String, stateDirectory: URL, logDirectory: URL, start: Date, configurationName: String? = nil,
                logOptions: PositionLog.Options = PositionLog.Options()) throws {
        let stateURL = Self.stateURL(id: id, stateDirectory: stateDirectory)
        var previous: State?
        if let bytes = try? FileDescriptor.readContents(of: stateURL.path) {
            do {
                previous = try JSONDecoder().decode(State.self, from: Data(bytes))
            } catch {
                throw PositioningError(.sessionInvalid, "unreadable session state \(stateURL.path)", underlying: error)
            }
            if let previous, previous.id != id {
                throw PositioningError(.sessionInvalid, "\(stateURL.path) belongs to session \(previous.id), not \(id)")
            }
        }
        let state: State
        if let previous, !previous.invalidated {
            let ownLog = Self.logURL(id: id, start: previous.start, logDirectory: logDirectory)
            guard URL(fileURLWithPath: previous.logPath).standardizedFileURL.path == ownLog.path else {
                throw PositioningError(.sessionInvalid, "\(stateURL.path): log path \(previous.logPath) is not this session's log "
                                       + "(\(ownLog.lastPathComponent) in \(ownLog.deletingLastPathComponent().path))")
            }
            state = previous
            log = try PositionLog(url: ownLog, options: logOptions)
            isRejoined = true
        } else {
            do {
                try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
            } catch {
                throw PositioningError(.io, "cannot create log directory \(logDirectory.path)", underlying: error)
            }
            let logURL = Self.logURL(id: id, start: start, logDirectory: logDirectory)
            state = State(id: id, start: start, logPath: logURL.path, configurationName: configurationName, invalidated: false)
            log = try PositionLog(url: logURL, options: logOptions)
            try Self.save(state, to: stateURL)
            isRejoined = false
        }
        self.id = id
        self.state = state
        self.stateURL = stateURL
    }

    /// Releasing the last reference invalidates the session (its log completed and closed, its
    /// state file removed), unless `leaveForRestart()` was called: then its attachments stop
    /// and the log is closed without syncing, as a crash would, for the next process to rejoin.
    deinit {
        let leave = mutable.withLock { $0.leftForRestart && !$0.invalidated }
        if leave {
            mutable.withLock { $0.attachments.forEach { $0.cancel() } }
            log.abandon()
        } else {
            try? invalidate()
            log.abandon() // after a failed invalidate: closes what is left open
        }
    }

    /// Leaves the session persisted when this object is released, as when the process dies:
    /// the next process (or object) with the same id rejoins it. For a program that exits on
    /// purpose and resumes the session on its next run.
    public func leaveForRestart() {
        mutable.withLock { $0.leftForRestart = true }
    }

    /// Whether `invalidate()` was called on this object.
    public var isInvalidated: Bool { mutable.withLock { $0.invalidated } }

    /// The last error writing the log, if any.
    public var lastLoggingError: PositioningError? { mutable.withLock { $0.lastLoggingError } }

    /// Logs what `manager` delivers: every `.updated` location (the positions subscribers see:
    /// after stationary pauses and the significant-change rule, map-matched when matching is
    /// on), and a new `<trkseg>` after each `.lost`. Subscribes before returning, so every
    /// event the manager sends afterwards is logged (unbounded buffer: a log drops nothing).
    /// To log the raw fixes of the source instead, use `loggingSource(_:)`; use one or the
    /// other, or the log gets every fix twice. Events still queued when `invalidate()` is
    /// called are not logged, so stop the manager (or let it drain) first.
    /// - Throws: `PositioningError.sessionInvalid` after `invalidate()`.
    public func attach(to manager: PositioningManager) throws {
        let events = manager.events(bufferingPolicy: .unbounded)
        try mutable.withLock { m in
            guard !m.invalidated else { throw PositioningError(.sessionInvalid, "session \(id) was invalidated") }
            let task = Task { [log, weak self] in
                for await event in events {
                    do {
                        switch event {
                        case .updated(let location): try log.append(location)
                        case .lost: try log.beginSegment()
                        default: break
                        }
                    } catch {
                        self?.record(error)
                    }
                }
            }
            m.attachments.append(task)
        }
    }

    /// `source` with every fix it delivers logged before it is passed on: the log of "what the
    /// data source delivered" (HERE's `NMAPositionLogTypeDataSource`), raw and unfiltered.
    /// Give the result to the manager (`setDataSource`) or consume it directly. `.lost` starts
    /// a new `<trkseg>`. Every run of the result logs, so give it to one consumer.
    public func loggingSource(_ source: any PositionSource) -> any PositionSource {
        LoggingPositionSource(base: source, log: log) { [weak self] in self?.record($0) }
    }

    /// Ends the session: stops the attachments, completes and closes the log, and removes the
    /// state file. Calling it again does nothing.
    /// - Throws: `PositioningError.io` when the state file or the log cannot be written.
    public func invalidate() throws {
        let attachments: [Task<Void, Never>]? = mutable.withLock { m in
            guard !m.invalidated else { return nil }
            m.invalidated = true
            defer { m.attachments = [] }
            return m.attachments
        }
        guard let attachments else { return }
        attachments.forEach { $0.cancel() }
        var ended = state
        ended.invalidated = true
        try Self.save(ended, to: stateURL)
        try log.close()
        do {
            try FileManager.default.removeItem(at: stateURL)
        } catch {
            throw PositioningError(.io, "cannot remove \(stateURL.path)", underlying: error)
        }
    }

    private func record(_ error: any Error) {
        let failure = error as? PositioningError ?? PositioningError(.io, "position log: \(error)", underlying: error)
        mutable.withLock { $0.lastLoggingError = failure }
    }

    /// Writes the state atomically and durably (`AtomicFileReplacement`).
    private static func save(_ state: State, to url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try AtomicFileReplacement.write(Array(encoder.encode(state)), to: url.path)
        } catch {
            throw PositioningError(.io, "cannot write session state \(url.path)", underlying: error)
        }
    }
}

/// A source that logs every fix of its base source before passing it on.
struct LoggingPositionSource: PositionSource {
    let base: any PositionSource
    let log: PositionLog
    let onError: @Sendable (any Error) -> Void

    var name: String { base.name }
    /// The base's: a fast replay logged (`geo track --log-dir` over a file) is still not timed
    /// by the lost-position watchdog, whose timer gave it a `.lost` under load.
    var isReplayedAsFastAsPossible: Bool { base.isReplayedAsFastAsPossible }

    func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: PositionSourceEvent.self)
        let task = Task { [base, log, onError] in
            do {
                for try await event in base.events() {
                    do {
                        switch event {
                        case .location(let location): try log.append(location)
                        case .lost: try log.beginSegment()
                        case .authorizationChanged, .heading: break
                        }
                    } catch {
                        onError(error)
                    }
                    continuation.yield(event)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
