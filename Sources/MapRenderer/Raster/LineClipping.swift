/// Liang and Barsky's parametric line clipping ("A New Concept and Method for Line Clipping",
/// ACM TOG 3(1), 1984): the renderer's one segment-against-rectangle test, which cuts outlines
/// to their tile (`MapPainter.parts`) and lines to the image before stroking (`Stroker.clipped`).
public enum LineClipping {
    /// The parameters (0…1) between which the segment from (`ax`, `ay`) to (`bx`, `by`) lies in
    /// the box (its border counts as inside); nil when it misses the box.
    @inline(__always)
    public static func visibleSpan(ax: Double, ay: Double, bx: Double, by: Double,
                            minX: Double, minY: Double, maxX: Double, maxY: Double) -> (t0: Double, t1: Double)? {
        let dx = bx - ax, dy = by - ay
        var t0 = 0.0, t1 = 1.0
        // One bound: the segment moves p toward it per unit of t and starts q inside it.
        func keep(_ p: Double, _ q: Double) -> Bool {
            if p == 0 { return q >= 0 }
            let t = q / p
            if p < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
            return t0 <= t1
        }
        guard keep(-dx, ax - minX), keep(dx, maxX - ax), keep(-dy, ay - minY), keep(dy, maxY - ay) else { return nil }
        return (t0, t1)
    }
}
