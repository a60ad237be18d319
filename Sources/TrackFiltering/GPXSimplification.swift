public import GeoCore
public import GPXCodec

extension GPXDocument {
    /// The document with every track segment simplified on its own (``Simplification``), whole
    /// points kept (times, elevations, extensions); waypoints, routes and metadata unchanged
    /// (`geo gpx simplify`).
    /// - Parameter tolerance: Douglas–Peucker: the largest distance (m) a dropped point may lie
    ///   from the simplified line; Visvalingam–Whyatt: points whose effective area is below
    ///   `tolerance²` (m²) are dropped.
    /// - Complexity: as ``Simplification/keptIndices(_:tolerance:method:)`` per segment.
    public func simplifyingTracks(tolerance: Distance, method: Simplification.Method) -> GPXDocument {
        var document = self
        for t in document.tracks.indices {
            for s in document.tracks[t].segments.indices {
                let points = document.tracks[t].segments[s].points
                let kept = Simplification.keptIndices(points.map(\.coordinate), tolerance: tolerance, method: method)
                document.tracks[t].segments[s].points = kept.map { points[$0] }
            }
        }
        return document
    }
}
