extension GeoJSON {
    /// The positions of the document's first LineString: the geometry itself, a Feature's, or
    /// the first Feature of a collection that has one (RFC 7946 §3.1.4); nil when there is none.
    /// How a route is given as GeoJSON (`geo simulate --route`, `route:` sources).
    public var firstLineString: [Coordinate]? {
        func line(_ g: GeoJSONGeometry?) -> [Coordinate]? {
            if case .lineString(let p)? = g { p.map(\.coordinate) } else { nil }
        }
        return switch self {
        case .geometry(let g): line(g)
        case .feature(let f): line(f.geometry)
        case .featureCollection(let fs): fs.lazy.compactMap { line($0.geometry) }.first
        }
    }
}
