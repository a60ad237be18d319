public import GeoBase
import GeoCore

/// A value the reader could not use and left out, while it kept reading: an empty or
/// invalid optional field (the field is dropped, the point kept) or a point whose required
/// `lat` / `lon` is missing or out of range (the point is dropped).
///
/// `line` and `column` are 1-based (`column` in bytes) and locate the element's start tag;
/// `offset` is its 0-based byte offset from the start of the input.
public struct GPXWarning: Hashable, Sendable, CustomStringConvertible {
    /// What was left out and why: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<GPXWarning>

    public var code: Code
    /// The element's name as written, prefix included (`ele`, `fix`, `gpxtpx:hr`, `trkpt`).
    public var element: String
    /// The text that could not be read (entities decoded), or the attribute value for a
    /// dropped point; empty for an empty element or a missing attribute.
    public var text: String
    /// A human explanation, saying what was dropped.
    public var message: String
    /// 1-based line of the element's start tag.
    public var line: Int
    /// 1-based column of the element's start tag, in bytes from the start of the line.
    public var column: Int
    /// 0-based byte offset of the element's start tag from the start of the input.
    public var offset: Int

    public init(_ code: Code, element: String, text: String, message: String, line: Int, column: Int, offset: Int) {
        self.code = code
        self.element = element
        self.text = text
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
    }

    public var description: String { "\(line):\(column): \(code): \(message)" }
}

extension ErrorCode where Domain == GPXWarning {
    /// An optional field with no text (`<ele/>`, `<fix></fix>`): the field is dropped.
    public static var emptyValue: Self { Self("empty value") }
    /// An optional field whose text is not of its type (a number, an integer, an ISO 8601
    /// time, one of the `fix` values): the field is dropped.
    public static var invalidValue: Self { Self("invalid value") }
    /// An optional element without an attribute it needs (`<link>` without `href`,
    /// `<bounds>` without `minlat`): the element is dropped.
    public static var missingAttribute: Self { Self("missing attribute") }
    /// A point whose `lat` or `lon` is missing, not a number or out of range: the point is
    /// dropped.
    public static var pointDropped: Self { Self("point dropped") }
}

/// How a GPX reader treats what it cannot use.
public struct GPXReadOptions: Hashable, Sendable {
    /// Whether damage ends the document instead of failing the read: with `true`, a
    /// truncated or malformed file (a position log cut off by a crash) yields everything that
    /// was complete before the damage — whole points only; an unfinished point is dropped, and
    /// open routes, tracks and segments are closed after their last complete point — and the
    /// damage is reported as ``GPXStreamReader/damage`` (``GPXReadResult/damage``).
    /// A file that is not GPX, not UTF-8 or unreadable still fails.
    public var recovering: Bool
    /// How many warnings are kept in full; all of them are counted
    /// (``GPXStreamReader/warningCount``), so memory stays bounded on a file that has a bad
    /// value in every point.
    public var warningLimit: Int
    /// What the reader builds of each point: everything (the default), or only its numbers
    /// for a consumer that needs no text (``GPXPointFields/measurements``).
    public var pointFields: GPXPointFields

    public init(recovering: Bool = false, warningLimit: Int = 1_000, pointFields: GPXPointFields = .all) {
        self.recovering = recovering
        self.warningLimit = warningLimit
        self.pointFields = pointFields
    }
}

/// Which fields of each waypoint, route point and track point a reader builds.
///
/// Either way every byte is read and checked the same: broken XML inside a skipped element, a
/// bad reference in a skipped name, is the same error at the same place, and the warnings are
/// the same (a `<link>` without `href`, an invalid Garmin TrackPointExtension field).
public struct GPXPointFields: Hashable, Sendable {
    private enum Fields { case all, measurements }
    private let fields: Fields

    /// Every field, and the point's extensions and unknown elements verbatim.
    public static let all = GPXPointFields(fields: .all)
    /// Position, elevation, time and the other numeric fields (`magvar`, `geoidheight`, `fix`,
    /// `sat`, the dilutions, `ageofdgpsdata`, `dgpsid`, GPX 1.0 `course` / `speed`). Names,
    /// comments, descriptions, sources, symbols, types, links, extensions and unknown elements
    /// are left out of the point without building their strings, for consumers such as
    /// statistics that never read them.
    public static let measurements = GPXPointFields(fields: .measurements)

    /// Whether text fields, links and raw XML are built.
    var keepsText: Bool { fields == .all }
}
