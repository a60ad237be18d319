public import Foundation
public import GeoCore
public import GPXCodec
import Synchronization
import SystemIO
import Platform
public import GeoBase

/// A crash-safe GPX 1.1 log of fixes, one file per session (HERE's position log, `logType =
/// DataSource`, DESIGN.md §1).
///
/// The file holds one `<trk>`; every run of the log (the first open and each reopen after a
/// restart) is one `<trkseg>`, and `beginSegment()` starts another one, e.g. after a loss of
/// position. Each point is GPXCodec's bridge of the fix, `GPXPoint(location:)`: `time`, `ele`,
/// `fix` and `sat` from GPX and the `Location` fields GPX 1.1 lacks in LocationKit's point
/// extension (namespace `GPXPoint.locationExtensionNamespace`, prefix `lk`), so `read(url:)`
/// restores every field.
///
/// **A complete document after every append.** The file always ends with the closing tags of
/// what is open (`</trkseg>`, `</trk>`, `</gpx>`). An append writes the new point followed by
/// the closing tags where the old closing tags start, in one `pwrite(2)` when that stays
/// within a page of the file, else in single-page steps that each leave a valid document
/// (`LogFileSink`: Linux may cut a write short between two pages when the process is killed).
/// So at every instant, and after every acknowledged append, the file is a valid GPX 1.1
/// document that any reader (xmllint, gpxpy, GPSBabel, `geo gpx stats`) takes as it is. A
/// batch append writes once per 64 KiB, each write again leaving a complete document.
///
/// **Acknowledged** means: `append` returned. The write has then reached the operating system,
/// so a process crash (`kill -9`) at any later moment keeps the point and a valid file.
/// Surviving a power loss also needs `fsync(2)`, chosen with `Options.sync`; a point is
/// power-loss safe once the sync that follows it returned (by default the kernel's writeback
/// decides, on Linux typically within 30 s). A write cut short by a power loss leaves the
/// file ending inside the new point (or with zeros there); such a torn final write is
/// repaired when the log is reopened (a `BackgroundActivitySession` rejoined), and `recovery`
/// says what it cost.
///
/// **Concurrency.** A `final class` whose state sits behind a `Mutex`: appends are short,
/// blocking system calls that must finish before the caller goes on (the crash-safety promise
/// is about returned calls), so a synchronous API callable from any thread or actor fits better
/// than an actor, whose callers would have to `await` and could not log from synchronous code.
/// One process at a time may write a file: the log holds an exclusive `flock(2)` on it.
public final class PositionLog: Sendable {

    /// When the log calls `fsync(2)`; `write(2)` happens after every point regardless.
    public enum SyncPolicy: Sendable, Hashable {
        /// Never explicitly: survives a process crash, and a power loss loses what the kernel
        /// had not yet written back.
        case never
        /// After every `n`-th appended point (1 or less = every point; one disk flush per fix).
        case everyPoints(Int)
        /// When the newest fix is at least `seconds` (fix time, not the wall clock) after the
        /// fix of the last sync, so a power loss loses at most that much of the track.
        case fixInterval(seconds: Double)
    }

    /// How a log is written.
    public struct Options: Sendable, Hashable {
        /// When to `fsync(2)`.
        public var sync: SyncPolicy
        /// The `creator` attribute of a new file.
        public var creator: String
        /// The `<name>` of the track of a new file.
        public var trackName: String?

        public init(sync: SyncPolicy = .never, creator: String = "LocationKit", trackName: String? = nil) {
            self.sync = sync
            self.creator = creator
            self.trackName = trackName
        }
    }

    /// The log file.
    public let url: URL
    public let options: Options

    /// What reopening an existing file found, and what its repair dropped.
    public struct Recovery: Sendable, Hashable {
        /// Track points read back and kept.
        public var pointsKept: Int
        /// Track points begun in the file but not complete (`<trkpt` start tags beyond the
        /// points kept): points whose write was torn, so never acknowledged, dropped.
        public var pointsDropped: Int
        /// Where reading stopped and why, nil for a complete document: `.truncated` when the
        /// file ends inside a point, `.malformedXML` when a torn write left part of the old
        /// closing tags behind it.
        public var damage: GPXError?

        /// "120 points kept", then ", 2 torn points (never acknowledged) dropped" when any were.
        public var summary: String {
            "\(pointsKept) points kept" + (pointsDropped > 0 ? ", \(pointsDropped) torn points (never acknowledged) dropped" : "")
        }
    }

    /// What opening an existing file found and repaired; nil when the log created the file.
    public let recovery: Recovery?

    private struct State {
        var writer: GPXStreamWriter<LogFileSink>?
        let fd: FileDescriptor
        var segmentOpen = false
        var pointsWritten = 0
        var pointsSinceSync = 0
        var lastSyncTime: Date?
    }
    private let state: Mutex<State>

    /// The file name of a session's log: the start time (UTC, `yyyyMMdd'T'HHmmss'Z'`) and the
    /// session id, so a directory of logs sorts by time.
    /// - Parameters:
    ///   - sessionID: any identifier; characters other than letters, digits, `-` and `_`
    ///     become `_`.
    public static func fileName(sessionID: String, start: Date) -> String {
        let time = ISO8601Time.string(from: Date(timeIntervalSince1970: start.timeIntervalSince1970.rounded(.down)))
            .filter { $0 != "-" && $0 != ":" }
        let id = String(sessionID.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
        return "\(time)_\(id).gpx"
    }

    /// Opens the log of a session in `directory` (created if missing), named by
    /// `fileName(sessionID:start:)`; an existing file of that name is continued as by
    /// `init(url:options:)`.
    /// - Throws: `PositioningError.io` when the directory or file cannot be written.
    public convenience init(directory: URL, sessionID: String, start: Date, options: Options = Options()) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw PositioningError(.io, "cannot create log directory \(directory.path)", underlying: error)
        }
        try self.init(url: directory.appendingPathComponent(Self.fileName(sessionID: sessionID, start: start)), options: options)
    }

    /// Creates the log at `url`, or continues an existing one.
    ///
    /// An existing file is read with the GPX reader; every complete point is kept, and the new
    /// points go into a new `<trkseg>` of the last track. A log as this type leaves it —
    /// complete, or ending in a torn write after its last complete point — is repaired in
    /// place: cut back to the end of its last complete point (`ftruncate(2)`), then
    /// `</trkseg>` and the closing tags are written; what was cut is counted in `recovery`. A
    /// crash between the cut and the write leaves a file ending after its last point, which
    /// the next open repairs the same way. Any other file (another writer's, or damaged before
    /// its last point) is rewritten through a temporary file renamed over it, so a crash during
    /// the repair leaves either the old or the new file; damage other than a cut (garbage
    /// after a power loss) is recovered the same way, and the original bytes are kept as
    /// `<file>.damaged`.
    /// - Throws: `PositioningError.io` when the file cannot be opened or written, is in use by
    ///   another log, or holds no recoverable track point and is not a cut-off GPX file (it is
    ///   then left untouched).
    /// - Complexity: O(n) time in the size of an existing file, in constant memory (one
    ///   streaming read for a log repaired in place; two reads and a write for a rewrite);
    ///   O(1) for a new one.
    public init(url: URL, options: Options = Options()) throws {
        self.url = url
        self.options = options
        var writer: GPXStreamWriter<LogFileSink>
        let fd: FileDescriptor
        let path = url.path
        var existing: FileDescriptor?
        do throws(SystemIOError) {
            existing = try FileDescriptor(opening: path, .readWrite)
        } catch where error.code == .notFound {
            existing = nil
        } catch {
            throw Self.ioError(error, "cannot open \(path)")
        }
        if let existing {
            let survey: GPXRecovery.Survey
            let continued: (GPXStreamWriter<LogFileSink>, Recovery)?
            do {
                try Self.lock(existing, path)
                survey = GPXRecovery.survey(FileSource(existing, fromOffset: 0))
                continued = try Self.continueInPlace(existing, survey: survey, path: path, options: options)
            } catch {
                try? existing.close()
                throw error
            }
            let recovery: Recovery
            if let continued {
                (writer, recovery) = continued
                fd = existing
            } else {
                defer { try? existing.close() }
                (writer, fd, recovery) = try Self.rewrite(existing, survey: survey, at: path, options: options)
            }
            self.recovery = recovery
        } else {
            do { fd = try FileDescriptor(opening: path, .writeOnly, options: [.create, .exclusive]) } catch {
                throw Self.ioError(error, "cannot create \(path)")
            }
            recovery = nil
            do {
                try Self.lock(fd, path)
                writer = try GPXStreamWriter(completing: LogFileSink(fd, path: path), header: Self.header(creator: options.creator, namespaces: []))
                try writer.beginTrack(GPXPathInfo(name: options.trackName))
                try writer.flush()
                if options.sync != .never {
                    try Self.sync(fd, path)
                    FileDescriptor.syncDirectory(containing: path)
                }
            } catch {
                try? fd.close()
                throw Self.ioError(error, "cannot write \(path)")
            }
        }
        state = Mutex(State(writer: writer, fd: fd))
    }

    deinit {
        // A log dropped without `close()` is left as a crash would leave it: complete, and
        // continued as a new segment by the next open.
        state.withLock { s in if s.writer != nil { try? s.fd.close() } }
    }

    /// The points appended through this instance.
    public var pointsWritten: Int { state.withLock { $0.pointsWritten } }

    /// Whether `close()` or `abandon()` was called.
    public var isClosed: Bool { state.withLock { $0.writer == nil } }

    /// Appends one fix and hands it to the operating system before returning, leaving the file
    /// a complete document.
    /// - Complexity: O(1): one `pwrite(2)` (six single-page ones when the point crosses a page
    ///   boundary, about one fix in five), no allocation beyond the point's own fields.
    /// - Throws: `PositioningError.io` on a write error, `.sessionInvalid` after `close()`.
    public func append(_ location: Location) throws {
        try append(contentsOf: CollectionOfOne(location))
    }

    /// Appends fixes and hands them to the operating system before returning, with one
    /// `pwrite(2)` per 64 KiB of the batch, each leaving the file a complete document.
    /// - Throws: `PositioningError.io` on a write error, `.sessionInvalid` after `close()`.
    /// - Complexity: O(n) in the number of fixes.
    public func append(contentsOf locations: some Sequence<Location>) throws {
        try state.withLock { s in
            // Taken out of the state so the writer's buffer stays uniquely referenced (no copy).
            guard var writer = s.writer.take() else { throw PositioningError(.sessionInvalid, "the position log \(url.lastPathComponent) is closed") }
            defer { s.writer = writer }
            var newest: Date?
            var count = 0
            do {
                for location in locations {
                    if !s.segmentOpen {
                        try writer.beginSegment()
                        s.segmentOpen = true
                    }
                    try writer.write(trackPoint: GPXPoint(location: location))
                    newest = location.timestamp
                    count += 1
                }
                guard count > 0 else { return }
                try writer.flush()
            } catch {
                throw Self.ioError(error, "cannot write \(url.path)")
            }
            s.pointsWritten += count
            s.pointsSinceSync += count
            let due: Bool
            switch options.sync {
            case .never: due = false
            case .everyPoints(let n): due = s.pointsSinceSync >= max(n, 1)
            case .fixInterval(let seconds):
                if let last = s.lastSyncTime, let newest { due = newest.timeIntervalSince(last) >= seconds } else { due = true }
            }
            if due {
                try Self.sync(s.fd, url.path)
                s.pointsSinceSync = 0
                s.lastSyncTime = newest
            }
        }
    }

    /// Ends the current segment, so the next fix starts a new `<trkseg>` (a gap in the track,
    /// e.g. after the position was lost). Does nothing when the segment has no points yet.
    /// Writes `</trkseg>` at once, so the file stays complete.
    /// - Throws: `PositioningError.io` on a write error, `.sessionInvalid` after `close()`.
    public func beginSegment() throws {
        try state.withLock { s in
            // Taken out of the state so the writer's buffer stays uniquely referenced (no copy).
            guard var writer = s.writer.take() else { throw PositioningError(.sessionInvalid, "the position log \(url.lastPathComponent) is closed") }
            defer { s.writer = writer }
            guard s.segmentOpen else { return }
            do {
                try writer.endSegment()
                try writer.flush()
            } catch {
                throw Self.ioError(error, "cannot write \(url.path)")
            }
            s.segmentOpen = false
        }
    }

    /// Forces everything written so far to stable storage (`fsync(2)`), whatever the policy.
    /// - Throws: `PositioningError.io` on failure, `.sessionInvalid` after `close()`.
    public func sync() throws {
        try state.withLock { s in
            guard s.writer != nil else { throw PositioningError(.sessionInvalid, "the position log \(url.lastPathComponent) is closed") }
            try Self.sync(s.fd, url.path)
            s.pointsSinceSync = 0
        }
    }

    /// Closes the file without syncing it, leaving it as a crash would: a complete document,
    /// continued as a new segment by the next open (this is what releasing the log does).
    /// Calling it again, or after `close()`, does nothing.
    public func abandon() {
        state.withLock { s in
            guard s.writer != nil else { return }
            s.writer = nil
            try? s.fd.close()
        }
    }

    /// Closes the open segment and track for good (the file keeps the same bytes: they were
    /// its closing tags), syncs it to disk and closes the file. Calling it again does nothing.
    /// - Throws: `PositioningError.io` on a write error (the file is closed regardless).
    public func close() throws {
        try state.withLock { s in
            guard var writer = s.writer else { return }
            s.writer = nil
            defer { try? s.fd.close() }
            do {
                if s.segmentOpen { try writer.endSegment() }
                try writer.endTrack()
                _ = try writer.finish()
            } catch {
                throw Self.ioError(error, "cannot write \(url.path)")
            }
            try Self.sync(s.fd, url.path)
        }
    }

    // MARK: - Reading back

    /// Reads a log back: every fix with all its fields, in file order (the points of every
    /// track), the number of `<trkseg>` elements read, and the damage that ended reading early
    /// (a torn final write leaves `GPXError.Code.truncated`), or nil for a complete file. A point without
    /// a time gets the Unix epoch.
    /// - Parameter accuracy: the accuracy of points that do not record one (`GPXAccuracyPolicy`).
    /// - Throws: `PositioningError.io` when the file cannot be opened.
    /// - Complexity: O(n) in the file size; memory O(fixes) (the file is streamed).
    public static func read(url: URL, accuracy: GPXAccuracyPolicy = .default) throws -> (locations: [Location], segments: Int, damage: GPXError?) {
        let fd: FileDescriptor
        do { fd = try FileDescriptor(opening: url.path) } catch { throw ioError(error, "cannot open \(url.path)") }
        defer { try? fd.close() }
        let reader = GPXStreamReader(source: FileSource(fd, path: url.path, fromOffset: 0))
        var prefix = GPXPoint.locationExtensionPrefix
        var locations: [Location] = []
        var segments = 0
        do {
            while let event = try reader.next() {
                switch event {
                case .header(let header):
                    prefix = header.namespaces.first { $0.uri == GPXPoint.locationExtensionNamespace }?.prefix
                        ?? GPXPoint.locationExtensionPrefix
                case .segmentStart: segments += 1
                case .trackPoint(var point):
                    point.time = point.time ?? Date(timeIntervalSince1970: 0)
                    if let location = Location(gpxPoint: point, accuracy: accuracy, extensionPrefix: prefix) {
                        locations.append(location)
                    }
                default: break
                }
            }
        } catch {
            return (locations, segments, error)
        }
        return (locations, segments, nil)
    }

    // MARK: - Files

    private static func header(creator: String, namespaces: [GPXNamespace]) -> GPXHeader {
        var namespaces = namespaces.filter {
            $0.uri != GPXPoint.locationExtensionNamespace && $0.prefix != GPXPoint.locationExtensionPrefix
        }
        namespaces.append(GPXNamespace(prefix: GPXPoint.locationExtensionPrefix, uri: GPXPoint.locationExtensionNamespace))
        return GPXHeader(version: .v1_1, creator: creator, namespaces: namespaces)
    }

    /// Continues a surveyed log in place when only closing tags, or a torn write, follow its
    /// last complete track point, which ends at the last `</trkpt>` of the file: cuts the file
    /// there and writes `</trkseg>` and the closing tags, so the next fix starts a new
    /// segment. Nil when the file has another shape (no point yet, another writer's
    /// namespaces, damage before its last point), for `rewrite`.
    private static func continueInPlace(_ fd: FileDescriptor, survey: GPXRecovery.Survey, path: String, options: Options) throws -> (GPXStreamWriter<LogFileSink>, Recovery)? {
        guard survey.points > 0, survey.endsInLastSegment, let header = survey.header,
              header.namespaces.contains(GPXNamespace(prefix: GPXPoint.locationExtensionPrefix, uri: GPXPoint.locationExtensionNamespace))
        else { return nil }
        do {
            let size = try fd.size()
            // A torn write is at most one flush of the writer (64 KiB and a point).
            let tailStart = max(0, size - (1 << 18))
            let tail = try fd.read(count: Int(size - tailStart), atOffset: tailStart)[...]
            guard let (cut, dropped) = GPXRecovery.continuation(tail: tail, tailStart: tailStart, size: size, survey: survey) else { return nil }

            var writer = GPXStreamWriter(continuingSegmentIn: LogFileSink(fd, path: path, closingTagsOffset: cut),
                                         version: header.version, documentExtensions: survey.documentExtensions)
            try fd.truncate(toSize: cut)
            try writer.endSegment()
            try writer.flush()
            if options.sync != .never { try sync(fd, path) }
            return (writer, Recovery(pointsKept: survey.points, pointsDropped: dropped, damage: survey.damage))
        } catch {
            throw ioError(error, "cannot repair \(path)")
        }
    }

    /// Recovers the file open at `source` in two streaming passes (constant memory), writes
    /// the recovered document, complete but with its last track open, to a temporary file and
    /// renames it over `path`. Returns the writer, the new descriptor and what was dropped.
    private static func rewrite(_ source: FileDescriptor, survey: GPXRecovery.Survey, at path: String, options: Options) throws -> (GPXStreamWriter<LogFileSink>, FileDescriptor, Recovery) {
        let size: Int64
        do { size = try source.size() } catch { throw ioError(error, "cannot read \(path)") }
        let recovery: Recovery
        do {
            recovery = Recovery(pointsKept: survey.points, pointsDropped: try GPXRecovery.trackPointStartCount(in: FileSource(source, fromOffset: 0)) - survey.points, damage: survey.damage)
        } catch {
            throw ioError(error, "cannot read \(path)")
        }
        if let damage = survey.damage, damage.code != .truncated, size > 0 {
            // Damage other than a cut (e.g. stray bytes after a power loss without fsync):
            // keep the original next to the log when there is anything to salvage, else refuse.
            guard survey.points > 0 else {
                throw PositioningError(.io, "\(path) is not a GPX position log (\(damage)); left untouched")
            }
            do throws(SystemIOError) {
                try AtomicFileReplacement.write(try source.read(count: Int(size), atOffset: 0), to: path + ".damaged")
            } catch {
                throw ioError(error, "cannot keep a copy of the damaged log \(path)")
            }
        }
        let replacement: AtomicFileReplacement
        do { replacement = try AtomicFileReplacement(replacing: path, temporarySuffix: ".rewrite") } catch {
            throw ioError(error, "cannot rewrite \(path)")
        }
        let fd = replacement.descriptor
        do {
            try lock(fd, replacement.temporaryPath)
            let creator = survey.header.map(\.creator).flatMap { $0.isEmpty ? nil : $0 } ?? options.creator
            var w = try GPXStreamWriter(completing: LogFileSink(fd, path: path),
                                        header: header(creator: creator, namespaces: survey.header?.namespaces ?? []),
                                        metadata: survey.metadata, documentExtensions: survey.documentExtensions)
            do {
                try GPXRecovery.copyRecoverable(from: FileSource(source, fromOffset: 0), survey: survey, to: &w, trackName: options.trackName)
            } catch is GPXRecovery.SchemaOrderError {
                throw PositioningError(.io, "\(path) has GPX elements out of schema order; left untouched")
            }
            try w.flush()
            try replacement.commit(durable: options.sync != .never)
            return (w, fd, recovery)
        } catch {
            replacement.discard()
            throw ioError(error, "cannot rewrite \(path)")
        }
    }

    /// Takes the exclusive `flock(2)` on the file (busy for up to 2 s while a child process
    /// being spawned shares it: `FileDescriptor.lockExclusive`).
    private static func lock(_ fd: FileDescriptor, _ path: String) throws {
        let locked: Bool
        do { locked = try fd.lockExclusive() } catch { throw ioError(error, "cannot lock \(path)") }
        guard locked else { throw PositioningError(.io, "\(path) is being written by another position log") }
    }

    private static func sync(_ fd: FileDescriptor, _ path: String) throws {
        do { try fd.sync() } catch { throw ioError(error, "cannot sync \(path)") }
    }

    /// A `PositioningError` as it is, anything else (a `SystemIOError` naming the path and
    /// errno, a GPX write error) as `.io` with `message` and the cause.
    private static func ioError(_ error: any Error, _ message: String) -> PositioningError {
        error as? PositioningError ?? PositioningError(.io, message, underlying: error)
    }
}
