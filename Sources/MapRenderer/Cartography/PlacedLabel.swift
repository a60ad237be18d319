/// A label the symbol pass placed (a place or area name, a POI's icon or its name, a street
/// name) drawn alone on a transparent image, so that a moving map can draw it again where its
/// anchor goes without placing, shaping and rasterizing it anew (MapLibre keeps its placed
/// symbols so between placements). `MapPainter.placedLabels(_:overlays:through:width:height:)`
/// makes them.
public struct PlacedLabel: Sendable {
    /// The label's pixels, premultiplied RGBA, transparent around it.
    public var image: Pixmap
    /// The image's top-left corner, whole pixels of the projection the label was placed through.
    public var origin: Point
    /// The point the label belongs to, pixels of that projection: the place or POI, the middle
    /// of an area's box, the middle of a street name on its line.
    public var anchor: Point
    /// The boxes the label kept clear of other labels, pixels of that projection.
    public var boxes: [Box]

    /// An axis-aligned box, pixels.
    public struct Box: Hashable, Sendable {
        public var minX, minY, maxX, maxY: Double

        public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            self.minX = minX
            self.minY = minY
            self.maxX = maxX
            self.maxY = maxY
        }

        /// Whether the two boxes share more than an edge.
        public func intersects(_ o: Box) -> Bool { minX < o.maxX && o.minX < maxX && minY < o.maxY && o.minY < maxY }
    }
}
