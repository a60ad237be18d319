public import Platform
public import GeoCore

/// The GPX schema version of a document (topografix.com/GPX/1/0 and /1/1).
public enum GPXVersion: String, Hashable, Sendable, CaseIterable {
    case v1_0 = "1.0"
    case v1_1 = "1.1"

    /// The namespace URI of this version.
    public var namespace: String {
        switch self {
        case .v1_0: "http://www.topografix.com/GPX/1/0"
        case .v1_1: "http://www.topografix.com/GPX/1/1"
        }
    }
}

/// Foreign XML kept verbatim: the content of an `<extensions>` element (GPX 1.1) or the
/// foreign-namespace children of an element (GPX 1.0), so a round trip loses nothing.
public struct GPXExtensions: Hashable, Sendable {
    /// The raw XML between `<extensions>` and `</extensions>`, exactly as read (entities,
    /// comments and CDATA included). Namespace prefixes refer to declarations on the `<gpx>`
    /// element (kept in `GPXDocument.namespaces`) unless declared inside.
    public var xml: String

    public init(xml: String) { self.xml = xml }
}

/// A link to an external resource (GPX 1.1 `linkType`; GPX 1.0 `url` + `urlname`).
public struct GPXLink: Hashable, Sendable {
    /// The URL (`href`).
    public var href: String
    /// Text to show for the link.
    public var text: String?
    /// MIME type of the content.
    public var type: String?

    public init(href: String, text: String? = nil, type: String? = nil) {
        self.href = href
        self.text = text
        self.type = type
    }
}

/// Kind of fix of a point (GPX `fixType`).
public enum GPXFix: String, Hashable, Sendable, CaseIterable {
    case none
    case twoDimensional = "2d"
    case threeDimensional = "3d"
    case dgps
    case pps
}

/// A waypoint, route point or track point (GPX `wptType`) with every standard field.
///
/// Position, elevation, time and extensions are stored inline; the other fields, which most
/// track points lack, live in one shared copy-on-write box that exists only when one of them
/// is set. A bare track point is 72 bytes, so a million of them fit in about 70 MB.
public struct GPXPoint: Hashable, Sendable {
    /// Position, WGS84 degrees (the `lat` / `lon` attributes).
    public var coordinate: Coordinate
    /// Elevation (`ele`), metres. GPX does not say above what; usually MSL.
    public var elevation: Distance?
    /// UTC time of the fix (`time`), to the resolution the file gives.
    public var time: Date?
    /// Foreign XML of the point, verbatim.
    public var extensions: GPXExtensions?
    private var details: DetailsBox?

    public init(coordinate: Coordinate, elevation: Distance? = nil, time: Date? = nil) {
        self.coordinate = coordinate
        self.elevation = elevation
        self.time = time
    }

    /// The rarely present fields.
    struct Details: Hashable, Sendable {
        var magneticVariation: Bearing?
        var geoidHeight: Distance?
        var name: String?
        var comment: String?
        var description: String?
        var source: String?
        var links: [GPXLink] = []
        var symbol: String?
        var type: String?
        var fix: GPXFix?
        var satellites: Int?
        var hdop: Double?
        var vdop: Double?
        var pdop: Double?
        var ageOfDGPSData: Double?
        var dgpsID: Int?
        var course: Bearing?
        var speed: Speed?
    }

    /// Holds `Details` by reference. It is only mutated while uniquely referenced (copy on
    /// write in `updateDetails`), so sharing it between threads is safe.
    final class DetailsBox: Hashable, @unchecked Sendable {
        var value: Details
        init(_ value: Details) { self.value = value }
        static func == (a: DetailsBox, b: DetailsBox) -> Bool { a === b || a.value == b.value }
        func hash(into h: inout Hasher) { h.combine(value) }
    }

    private var detailValues: Details { details?.value ?? Details() }

    private mutating func updateDetails(_ body: (inout Details) -> Void) {
        if isKnownUniquelyReferenced(&details), let box = details {
            body(&box.value)
            if box.value == Details() { details = nil }
        } else {
            var v = detailValues
            body(&v)
            details = v == Details() ? nil : DetailsBox(v)
        }
    }

    public static func == (a: GPXPoint, b: GPXPoint) -> Bool {
        a.coordinate == b.coordinate && a.elevation == b.elevation && a.time == b.time
            && a.extensions == b.extensions && a.detailValues == b.detailValues
    }

    public func hash(into h: inout Hasher) {
        h.combine(coordinate)
        h.combine(elevation)
        h.combine(time)
        h.combine(extensions)
        h.combine(detailValues)
    }

    /// Magnetic variation at the point (`magvar`), degrees.
    public var magneticVariation: Bearing? {
        get { details?.value.magneticVariation }
        set { updateDetails { $0.magneticVariation = newValue } }
    }

    /// Height of the geoid above the WGS84 ellipsoid (`geoidheight`), metres.
    public var geoidHeight: Distance? {
        get { details?.value.geoidHeight }
        set { updateDetails { $0.geoidHeight = newValue } }
    }

    /// Name (`name`).
    public var name: String? {
        get { details?.value.name }
        set { updateDetails { $0.name = newValue } }
    }

    /// Comment (`cmt`).
    public var comment: String? {
        get { details?.value.comment }
        set { updateDetails { $0.comment = newValue } }
    }

    /// Description (`desc`).
    public var description: String? {
        get { details?.value.description }
        set { updateDetails { $0.description = newValue } }
    }

    /// Source of the data (`src`).
    public var source: String? {
        get { details?.value.source }
        set { updateDetails { $0.source = newValue } }
    }

    /// Links to more information (`link`; GPX 1.0 `url` + `urlname`).
    public var links: [GPXLink] {
        get { details?.value.links ?? [] }
        set { updateDetails { $0.links = newValue } }
    }

    /// Symbol name (`sym`).
    public var symbol: String? {
        get { details?.value.symbol }
        set { updateDetails { $0.symbol = newValue } }
    }

    /// Classification (`type`).
    public var type: String? {
        get { details?.value.type }
        set { updateDetails { $0.type = newValue } }
    }

    /// Kind of fix (`fix`).
    public var fix: GPXFix? {
        get { details?.value.fix }
        set { updateDetails { $0.fix = newValue } }
    }

    /// Satellites used (`sat`).
    public var satellites: Int? {
        get { details?.value.satellites }
        set { updateDetails { $0.satellites = newValue } }
    }

    /// Horizontal dilution of precision (`hdop`), dimensionless.
    public var hdop: Double? {
        get { details?.value.hdop }
        set { updateDetails { $0.hdop = newValue } }
    }

    /// Vertical dilution of precision (`vdop`), dimensionless.
    public var vdop: Double? {
        get { details?.value.vdop }
        set { updateDetails { $0.vdop = newValue } }
    }

    /// Position dilution of precision (`pdop`), dimensionless.
    public var pdop: Double? {
        get { details?.value.pdop }
        set { updateDetails { $0.pdop = newValue } }
    }

    /// Seconds since the last DGPS update (`ageofdgpsdata`).
    public var ageOfDGPSData: Double? {
        get { details?.value.ageOfDGPSData }
        set { updateDetails { $0.ageOfDGPSData = newValue } }
    }

    /// DGPS station ID (`dgpsid`, 0…1023).
    public var dgpsID: Int? {
        get { details?.value.dgpsID }
        set { updateDetails { $0.dgpsID = newValue } }
    }

    /// Course over ground (GPX 1.0 `course` only; 1.1 has no such element).
    public var course: Bearing? {
        get { details?.value.course }
        set { updateDetails { $0.course = newValue } }
    }

    /// Speed over ground (GPX 1.0 `speed` only; 1.1 has no such element).
    public var speed: Speed? {
        get { details?.value.speed }
        set { updateDetails { $0.speed = newValue } }
    }
}

/// A person or organisation (GPX 1.1 `personType`).
public struct GPXPerson: Hashable, Sendable {
    public var name: String?
    /// E-mail address as `id@domain`.
    public var email: String?
    public var link: GPXLink?

    public init(name: String? = nil, email: String? = nil, link: GPXLink? = nil) {
        self.name = name
        self.email = email
        self.link = link
    }
}

/// Copyright holder and licence (GPX 1.1 `copyrightType`).
public struct GPXCopyright: Hashable, Sendable {
    public var author: String
    public var year: String?
    /// URL of the licence.
    public var license: String?

    public init(author: String, year: String? = nil, license: String? = nil) {
        self.author = author
        self.year = year
        self.license = license
    }
}

/// Bounds as a file states them (`minlat`, `minlon`, `maxlat`, `maxlon`), degrees; not
/// necessarily true of the points.
public struct GPXBounds: Hashable, Sendable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }
}

/// Information about the file (GPX 1.1 `metadataType`; the top-level fields of GPX 1.0).
public struct GPXMetadata: Hashable, Sendable {
    public var name: String?
    public var description: String?
    public var author: GPXPerson?
    public var copyright: GPXCopyright?
    public var links: [GPXLink] = []
    public var time: Date?
    public var keywords: String?
    public var bounds: GPXBounds?
    public var extensions: GPXExtensions?

    public init() {}

    /// Whether no field is set.
    public var isEmpty: Bool { self == GPXMetadata() }
}

/// What a route or track says about itself (everything but its points).
public struct GPXPathInfo: Hashable, Sendable {
    public var name: String?
    /// Comment (`cmt`).
    public var comment: String?
    /// Description (`desc`).
    public var description: String?
    /// Source of the data (`src`).
    public var source: String?
    public var links: [GPXLink] = []
    /// GPS route / track number (`number`).
    public var number: Int?
    public var type: String?
    public var extensions: GPXExtensions?

    public init(name: String? = nil) { self.name = name }
}

/// An ordered list of points leading to a destination (`rteType`).
public struct GPXRoute: Hashable, Sendable {
    public var info: GPXPathInfo
    public var points: [GPXPoint]

    public init(info: GPXPathInfo = GPXPathInfo(), points: [GPXPoint] = []) {
        self.info = info
        self.points = points
    }
}

/// A continuous span of track points (`trksegType`).
public struct GPXTrackSegment: Hashable, Sendable {
    public var points: [GPXPoint]
    public var extensions: GPXExtensions?

    public init(points: [GPXPoint] = [], extensions: GPXExtensions? = nil) {
        self.points = points
        self.extensions = extensions
    }
}

/// An ordered list of segments (`trkType`).
public struct GPXTrack: Hashable, Sendable {
    public var info: GPXPathInfo
    public var segments: [GPXTrackSegment]

    public init(info: GPXPathInfo = GPXPathInfo(), segments: [GPXTrackSegment] = []) {
        self.info = info
        self.segments = segments
    }
}

/// A namespace declaration on the `<gpx>` element (`xmlns:prefix="uri"`; prefix nil for the
/// default namespace).
public struct GPXNamespace: Hashable, Sendable {
    public var prefix: String?
    public var uri: String

    public init(prefix: String?, uri: String) {
        self.prefix = prefix
        self.uri = uri
    }
}

/// What the `<gpx>` start tag says: version, creator, namespaces and other attributes.
public struct GPXHeader: Hashable, Sendable {
    public var version: GPXVersion
    /// The `creator` attribute (required by the schema; empty when a real file lacks it).
    public var creator: String
    /// The prefixed namespace declarations other than `xsi`, in file order. The GPX default
    /// namespace follows from `version` and `xmlns:xsi` is always declared on writing.
    public var namespaces: [GPXNamespace]
    /// `xsi:schemaLocation`, if given.
    public var schemaLocation: String?

    public init(version: GPXVersion = .v1_1, creator: String = "", namespaces: [GPXNamespace] = [], schemaLocation: String? = nil) {
        self.version = version
        self.creator = creator
        self.namespaces = namespaces
        self.schemaLocation = schemaLocation
    }
}

/// A whole GPX file in memory.
public struct GPXDocument: Hashable, Sendable {
    public var header: GPXHeader
    public var metadata: GPXMetadata
    public var waypoints: [GPXPoint]
    public var routes: [GPXRoute]
    public var tracks: [GPXTrack]
    /// The document-level `<extensions>`.
    public var extensions: GPXExtensions?

    public init(header: GPXHeader = GPXHeader(), metadata: GPXMetadata = GPXMetadata(), waypoints: [GPXPoint] = [],
                routes: [GPXRoute] = [], tracks: [GPXTrack] = [], extensions: GPXExtensions? = nil) {
        self.header = header
        self.metadata = metadata
        self.waypoints = waypoints
        self.routes = routes
        self.tracks = tracks
        self.extensions = extensions
    }
}

extension GPXDocument {
    /// How many points the document holds: waypoints, route points and track points.
    public var pointCount: Int {
        waypoints.count + routes.reduce(0) { $0 + $1.points.count }
            + tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
    }

    /// Every track segment, then every route, as a line of coordinates in document order:
    /// what a map draws of the document (`geo snapshot --track`); waypoints are not lines.
    public var polylines: [[Coordinate]] {
        tracks.flatMap { $0.segments.map { $0.points.map(\.coordinate) } } + routes.map { $0.points.map(\.coordinate) }
    }

    /// The document as GPX 1.1 (`geo gpx convert --to gpx`): a 1.0 header moves to version 1.1
    /// with 1.1's schema location, and an empty `creator` becomes `creator`. GPX 1.0's course
    /// and speed have no place in 1.1: `GPXWriter` leaves them out of a 1.1 document.
    public func upgradedToGPX11(creator: String) -> GPXDocument {
        var document = self
        if document.header.version == .v1_0 {
            document.header.version = .v1_1
            document.header.schemaLocation = "\(GPXVersion.v1_1.namespace) \(GPXVersion.v1_1.namespace)/gpx.xsd"
        }
        if document.header.creator.isEmpty { document.header.creator = creator }
        return document
    }
}
