/// The kind of road an edge belongs to: OSM's `highway=*` value (or `route=ferry`),
/// stored as one byte per edge.
public struct RoadClass: Hashable, Sendable, CustomStringConvertible {
    /// The stored byte; `RoadClass.allCases` indexes by it.
    public let rawValue: UInt8

    /// The OSM `highway` (or `route`) values in byte order; anything else is `.other`.
    static let names: [String] = [
        "other", "motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link",
        "secondary", "secondary_link", "tertiary", "tertiary_link", "unclassified", "residential",
        "living_street", "service", "track", "path", "footway", "cycleway", "bridleway",
        "pedestrian", "steps", "platform", "pier", "ferry", "road", "corridor", "busway",
    ]
    private static let byName: [String: UInt8] = {
        var d: [String: UInt8] = [:]
        for (i, n) in names.enumerated() { d[n] = UInt8(i) }
        return d
    }()

    /// The class for a stored byte; bytes beyond the known classes read as `.other`.
    public init(rawValue: UInt8) { self.rawValue = Int(rawValue) < Self.names.count ? rawValue : 0 }

    /// The class for an OSM tag value such as `"residential"`; unknown values give `.other`.
    public init(osmValue: String) { rawValue = Self.byName[osmValue] ?? 0 }

    /// The OSM tag value (`"primary"`, `"ferry"`, …), or `"other"`.
    public var osmValue: String { Self.names[Int(rawValue)] }

    public static let other = RoadClass(rawValue: 0)
    public static let motorway = RoadClass(osmValue: "motorway")
    public static let primary = RoadClass(osmValue: "primary")
    public static let residential = RoadClass(osmValue: "residential")
    public static let footway = RoadClass(osmValue: "footway")
    public static let steps = RoadClass(osmValue: "steps")
    public static let ferry = RoadClass(osmValue: "ferry")

    public var description: String { osmValue }
}

/// How an edge is travelled, as OSRM's `mode` (a bicycle pushed along a footway is walking).
public enum TravelMode: UInt8, Hashable, Sendable {
    case driving = 1, walking, cycling, pushingBike, ferry
}
