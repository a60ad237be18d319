import GeoBase
import GPXCodec
public import Routing

/// `geo route --format gpx`: a route as GPX, beside the match results' formats.
extension Route {
    /// The route as a GPX 1.1 document (GPXCodec's writer): one `<rte>` of the
    /// ``printedGeometry`` points (degrees, to 1e-7°), its distance and duration in `<desc>`
    /// (``summary``, metres and seconds).
    /// - Parameter creator: the document's `creator` attribute.
    /// - Throws: `GPXError` when the writer refuses a point (none of a route's can be refused).
    public func gpx(creator: String) throws -> String {
        var writer = try GPXStreamWriter(sink: MemorySink(), header: GPXHeader(creator: creator))
        var info = GPXPathInfo()
        info.description = summary
        try writer.beginRoute(info)
        for c in printedGeometry { try writer.write(routePoint: GPXPoint(coordinate: c)) }
        try writer.endRoute()
        return String(decoding: try writer.finish().bytes, as: UTF8.self)
    }
}
