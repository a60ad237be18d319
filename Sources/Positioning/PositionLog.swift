public import Foundation
public import GeoCore
public import GPXCodec
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A crash-safe GPX 1.1 log of fixes, one file per session (HERE's position log, `logType =
/// DataSource`, DESIGN.md §1).
///
/// The file holds one `<trk>`; every run of the log (the first open and each reopen after a
/// restart) is one `<trkseg>`, and `beginSegment()` starts another one, e.g. after a loss of
/// position. Each point carries `time`, `ele` (height above mean sea level), `fix` and `sat`
/// from GPX, and the `Location` fields GPX 1.1 lacks in a small extension in the namespace
/// `PositionLog.extensionNamespace` (prefix `lk`), so `read(url:)` restores every field:
///
/// ```xml
/// <trkpt lat="48.1" lon="11.5"><ele>520.5</ele><time>2026-09-21T08:00:00Z</time>
///   <extensions><lk:acc>4.5</lk:acc><lk:speed>13.9</lk:speed><lk:course>87</lk:course></extensions>
/// </trkpt>
/// ```
///
/// Extension elements: `acc` / `vacc` (horizontal / vertical accuracy, m), `speed` (m/s),
/// `sacc` (speed accuracy, m/s), `course` (degrees from true north), `cacc` (course accuracy,
/// degrees), `climb` (m/s), `hae` (height above the WGS84 ellipsoid, m), `q` (GGA fix quality).
///
/// **Durability.** Every `append` hands the point to the operating system with `write(2)`
/// before it returns, so a process crash (`kill -9`) at any moment loses nothing that was
/// appended: the file is then a prefix of the document, and `read(url:)` (the GPX reader's
/// truncation recovery) returns every appended point. Surviving a power loss also needs
/// `fsync(2)`, chosen with `Options.sync`; by default the kernel's writeback decides (on Linux
/// typically within 30 s).
///
/// **Concurrency.** A `final class` whose state sits behind a `Mutex`: appends are short,
/// blocking system calls that must finish before the caller goes on (the crash-safety promise
/// is about returned calls), so a synchronous API callable from any thread or actor fits better
/// than an actor, whose callers would have to `await` and could not log from synchronous code.
/// One process at a time may write a file: the log holds an exclusive `flock(2)` on it.
public final class PositionLog: Sendable {
    /// The XML namespace of the LocationKit point extension.
    public static let extensionNamespace = "urn:locationkit:gpx-log:1"
    /// The prefix the log declares for `extensionNamespace`.
    public static let extensionPrefix = "lk"

    /// When the log calls `fsync(2)`; `write(2)` happens after every point regardless.
    public enum SyncPolicy: Sendable, Hashable {
        /// Never explicitly: survives a process crash, and a power loss loses what the kernel
        /// had not yet written back.
        case never
        /// After every `n`-th appended point (1 = every point; one disk flush per fix).
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

    private struct State {
        var writer: GPXStreamWriter<FileSink>?
        let fd: Int32
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
        let time = GPXTime.string(from: Date(timeIntervalSince1970: start.timeIntervalSince1970.rounded(.down)))
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
    /// An existing file — complete, or cut off by a crash or power loss — is recovered with the
    /// GPX reader (every complete point is kept; a partial last point is dropped) and rewritten
    /// through a temporary file renamed over it, so a crash during the rewrite leaves either
    /// the old or the new file. The new points then go into a new `<trkseg>` of the last track.
    /// Damage other than a cut (garbage after a power loss) is recovered the same way, and the
    /// original bytes are kept as `<file>.damaged`.
    /// - Throws: `PositioningError.io` when the file cannot be opened or written, is in use by
    ///   another log, or holds no recoverable track point and is not a cut-off GPX file (it is
    ///   then left untouched).
    /// - Complexity: O(n) in the size of an existing file; O(1) for a new one.
    public init(url: URL, options: Options = Options()) throws {
        self.url = url
        self.options = options
        var writer: GPXStreamWriter<FileSink>
        let fd: Int32
        let path = url.path
        let existing = open(path, O_RDWR | O_CLOEXEC)
        if existing >= 0 {
            defer { closeDescriptor(existing) }
            try Self.lock(existing, path)
            let bytes = try Self.readAll(existing, path)
            (writer, fd) = try Self.rewrite(bytes, at: path, options: options)
        } else if errno == ENOENT {
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw Self.posixError("cannot create \(path)") }
            let sink = FileSink(fd: fd)
            do {
                try Self.lock(fd, path)
                writer = try GPXStreamWriter(sink: sink, header: Self.header(creator: options.creator, namespaces: []))
                try writer.beginTrack(GPXPathInfo(name: options.trackName))
                try writer.flush()
                if options.sync != .never { try Self.sync(fd, path) }
            } catch {
                closeDescriptor(fd)
                throw Self.ioError(error, "cannot write \(path)")
            }
        } else {
            throw Self.posixError("cannot open \(path)")
        }
        state = Mutex(State(writer: writer, fd: fd))
    }

    deinit {
        // A log dropped without `close()` is left as a crash would leave it: readable with
        // recovery, continued by the next open.
        state.withLock { s in if s.writer != nil { closeDescriptor(s.fd) } }
    }

    /// The points appended through this instance.
    public var pointsWritten: Int { state.withLock { $0.pointsWritten } }

    /// Whether `close()` was called.
    public var isClosed: Bool { state.withLock { $0.writer == nil } }

    /// Appends one fix and hands it to the operating system before returning.
    /// - Throws: `PositioningError.io` on a write error, `.sessionInvalid` after `close()`.
    public func append(_ location: Location) throws {
        try append(contentsOf: CollectionOfOne(location))
    }

    /// Appends fixes with one `write(2)` for the batch.
    /// - Throws: `PositioningError.io` on a write error, `.sessionInvalid` after `close()`.
    /// - Complexity: O(n) in the number of fixes.
    public func append(contentsOf locations: some Sequence<Location>) throws {
        try state.withLock { s in
            guard var writer = s.writer else { throw PositioningError(.sessionInvalid, "the position log \(url.lastPathComponent) is closed") }
            defer { s.writer = writer }
            var newest: Date?
            var count = 0
            do {
                for location in locations {
                    if !s.segmentOpen {
                        try writer.beginSegment()
                        s.segmentOpen = true
                    }
                    try writer.write(trackPoint: Self.point(from: location))
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
    /// - Throws: `PositioningError.io` on a write error, `.sessionInvalid` after `close()`.
    public func beginSegment() throws {
        try state.withLock { s in
            guard var writer = s.writer else { throw PositioningError(.sessionInvalid, "the position log \(url.lastPathComponent) is closed") }
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

    /// Closes the file without completing the document, leaving it as a crash would: readable
    /// with recovery and continued by the next open (this is what releasing the log does).
    /// Calling it again, or after `close()`, does nothing.
    public func abandon() {
        state.withLock { s in
            guard s.writer != nil else { return }
            s.writer = nil
            closeDescriptor(s.fd)
        }
    }

    /// Completes the document (`</trkseg></trk></gpx>`), syncs it to disk and closes the file.
    /// Calling it again does nothing.
    /// - Throws: `PositioningError.io` on a write error (the file is closed regardless).
    public func close() throws {
        try state.withLock { s in
            guard var writer = s.writer else { return }
            s.writer = nil
            defer { closeDescriptor(s.fd) }
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

    /// Reads a log back: every fix with all its fields, in file order, the number of track
    /// segments, and the damage that ended reading early (a crash leaves
    /// `GPXError.Code.truncated`), or nil for a complete file.
    /// - Throws: `PositioningError.io` when the file cannot be read.
    /// - Complexity: O(n) in the file size.
    public static func read(url: URL) throws -> (locations: [Location], segments: Int, damage: GPXError?) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw posixError("cannot open \(url.path)") }
        defer { closeDescriptor(fd) }
        let result = GPXReader.read(GPXMemorySource(try readAll(fd, url.path)), recovering: true)
        let prefix = result.document.header.namespaces.first { $0.uri == extensionNamespace }?.prefix ?? extensionPrefix
        var locations: [Location] = []
        var segments = 0
        for track in result.document.tracks {
            for segment in track.segments {
                segments += 1
                for point in segment.points { locations.append(location(from: point, extensionPrefix: prefix)) }
            }
        }
        return (locations, segments, result.error)
    }

    /// The GPX track point that carries `location` (see the type's documentation).
    public static func point(from location: Location) -> GPXPoint {
        var p = GPXPoint(coordinate: location.coordinate, elevation: location.altitude, time: location.timestamp)
        switch location.fixMode {
        case .noFix?: p.fix = GPXFix.none
        case .twoDimensional?: p.fix = .twoDimensional
        case .threeDimensional?: p.fix = .threeDimensional
        case nil: break
        }
        p.satellites = location.satelliteCount
        var xml = ""
        func add(_ tag: String, _ value: Double?) {
            guard let value, value.isFinite else { return }
            xml += "<\(extensionPrefix):\(tag)>\(value)</\(extensionPrefix):\(tag)>"
        }
        add("acc", location.horizontalAccuracy?.meters)
        add("vacc", location.verticalAccuracy?.meters)
        add("speed", location.speed?.metersPerSecond)
        add("sacc", location.speedAccuracy?.metersPerSecond)
        add("course", location.course?.degrees)
        add("cacc", location.courseAccuracy)
        add("climb", location.climb)
        add("hae", location.ellipsoidalAltitude?.meters)
        add("q", location.fixQuality.map { Double($0.rawValue) })
        if !xml.isEmpty { p.extensions = GPXExtensions(xml: xml) }
        return p
    }

    /// The fix a track point of a log describes; a point without a time gets the Unix epoch.
    /// - Parameter extensionPrefix: the prefix the file binds to `extensionNamespace`.
    public static func location(from point: GPXPoint, extensionPrefix: String = PositionLog.extensionPrefix) -> Location {
        var location = Location(coordinate: point.coordinate, timestamp: point.time ?? Date(timeIntervalSince1970: 0),
                                altitude: point.elevation, satelliteCount: point.satellites)
        switch point.fix {
        case .none?: location.fixMode = .noFix
        case .twoDimensional?: location.fixMode = .twoDimensional
        case .threeDimensional?, .dgps?, .pps?: location.fixMode = .threeDimensional
        case nil: break
        }
        guard let xml = point.extensions?.xml else { return location }
        for (tag, value) in extensionValues(xml, prefix: extensionPrefix) {
            switch tag {
            case "acc": location.horizontalAccuracy = .meters(value)
            case "vacc": location.verticalAccuracy = .meters(value)
            case "speed": location.speed = Speed(metersPerSecond: value)
            case "sacc": location.speedAccuracy = Speed(metersPerSecond: value)
            case "course": location.course = Bearing(degrees: value)
            case "cacc": location.courseAccuracy = value
            case "climb": location.climb = value
            case "hae": location.ellipsoidalAltitude = .meters(value)
            case "q": location.fixQuality = Int(exactly: value).flatMap(FixQuality.init(rawValue:))
            default: break
            }
        }
        return location
    }

    /// The numeric `<prefix:tag>value</prefix:tag>` elements of an extension's XML; other
    /// content is skipped.
    private static func extensionValues(_ xml: String, prefix: String) -> [(String, Double)] {
        var out: [(String, Double)] = []
        let open = "<\(prefix):"
        var rest = Substring(xml)
        while let start = rest.range(of: open) {
            rest = rest[start.upperBound...]
            guard let close = rest.firstIndex(of: ">") else { break }
            let tag = rest[..<close]
            rest = rest[rest.index(after: close)...]
            guard !tag.hasSuffix("/"), let end = rest.firstIndex(of: "<") else { continue }
            if let value = Double(rest[..<end].trimmingCharacters(in: .whitespacesAndNewlines)) {
                out.append((String(tag), value))
            }
            rest = rest[end...]
        }
        return out
    }

    // MARK: - Files

    private static func header(creator: String, namespaces: [GPXNamespace]) -> GPXHeader {
        var namespaces = namespaces.filter { $0.uri != extensionNamespace && $0.prefix != extensionPrefix }
        namespaces.append(GPXNamespace(prefix: extensionPrefix, uri: extensionNamespace))
        return GPXHeader(version: .v1_1, creator: creator, namespaces: namespaces)
    }

    /// Recovers `bytes`, writes the recovered document with the last track left open to a
    /// temporary file and renames it over `path`.
    private static func rewrite(_ bytes: [UInt8], at path: String, options: Options) throws -> (GPXStreamWriter<FileSink>, Int32) {
        let result = GPXReader.read(GPXMemorySource(bytes), recovering: true)
        if let error = result.error, error.code != .truncated, !bytes.isEmpty {
            // Damage other than a cut (e.g. zeros after a power loss without fsync): keep the
            // original next to the log when there is anything to salvage, else refuse.
            guard result.document.tracks.contains(where: { $0.segments.contains { !$0.points.isEmpty } }) else {
                throw PositioningError(.io, "\(path) is not a GPX position log (\(error)); left untouched")
            }
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: path + ".damaged"))
            } catch {
                throw PositioningError(.io, "cannot keep a copy of the damaged log \(path)", underlying: error)
            }
        }
        var document = result.document
        if result.error != nil, document.header.creator.isEmpty { document.header.creator = options.creator }
        // A foreign prefix bound to our namespace would make its points unreadable; a log
        // always binds `lk`, so rewriting under `lk` keeps them as they are.
        let file = URL(fileURLWithPath: path)
        let temporary = file.deletingLastPathComponent().appendingPathComponent("." + file.lastPathComponent + ".rewrite").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw posixError("cannot create \(temporary)") }
        let sink = FileSink(fd: fd)
        do {
            try lock(fd, temporary)
            let creator = document.header.creator.isEmpty ? options.creator : document.header.creator
            var w = try GPXStreamWriter(sink: sink, header: header(creator: creator, namespaces: document.header.namespaces),
                                        metadata: document.metadata)
            for p in document.waypoints { try w.write(waypoint: p) }
            for r in document.routes {
                try w.beginRoute(r.info)
                for p in r.points { try w.write(routePoint: p) }
                try w.endRoute()
            }
            var tracks = document.tracks
            let last = tracks.popLast() ?? GPXTrack(info: GPXPathInfo(name: options.trackName))
            for t in tracks {
                try w.beginTrack(t.info)
                for s in t.segments where !s.points.isEmpty {
                    try w.beginSegment()
                    for p in s.points { try w.write(trackPoint: p) }
                    try w.endSegment(extensions: s.extensions)
                }
                try w.endTrack()
            }
            try w.beginTrack(last.info)
            for s in last.segments where !s.points.isEmpty {
                try w.beginSegment()
                for p in s.points { try w.write(trackPoint: p) }
                try w.endSegment(extensions: s.extensions)
            }
            try w.flush()
            if options.sync != .never { try sync(fd, temporary) }
            guard rename(temporary, path) == 0 else { throw posixError("cannot replace \(path)") }
            return (w, fd)
        } catch {
            closeDescriptor(fd)
            unlink(temporary)
            throw ioError(error, "cannot rewrite \(path)")
        }
    }

    private static func lock(_ fd: Int32, _ path: String) throws {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            throw errno == EWOULDBLOCK ? PositioningError(.io, "\(path) is being written by another position log")
                                       : posixError("cannot lock \(path)")
        }
    }

    private static func readAll(_ fd: Int32, _ path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { readDescriptor(fd, $0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw posixError("cannot read \(path)")
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<n])
        }
    }

    private static func sync(_ fd: Int32, _ path: String) throws {
        guard fsync(fd) == 0 else { throw posixError("cannot sync \(path)") }
    }

    static func posixError(_ message: String) -> PositioningError {
        let code = errno
        return PositioningError(.io, "\(message): \(String(cString: strerror(code)))")
    }

    private static func ioError(_ error: any Error, _ message: String) -> PositioningError {
        error as? PositioningError ?? PositioningError(.io, message, underlying: error)
    }
}

/// A file descriptor the GPX writer writes to with `write(2)`, retrying short writes and EINTR.
struct FileSink: GPXByteSink, Sendable {
    let fd: Int32

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = writeDescriptor(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            if n < 0 {
                if errno == EINTR { continue }
                throw PositionLog.posixError("write failed")
            }
            offset += n
        }
    }
}

// File-level wrappers: inside the types, `close`, `read` and `write` name their own methods.
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }
private func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int { read(fd, buffer.baseAddress, buffer.count) }
private func writeDescriptor(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int { write(fd, buffer.baseAddress, buffer.count) }
