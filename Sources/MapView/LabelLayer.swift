import GeoCore
import MapCamera
import MapData
import MapRenderer
import StyleRendering

/// The labels of a moving view, placed once and drawn again every frame where their anchors
/// go (MapLibre's split of symbol placement from symbol drawing, issue 17): placing them —
/// collision, shaping, rasterizing glyphs along streets — is most of a labelled frame's cost,
/// while moving a few hundred small images is a fraction of a millisecond.
///
/// A placement covers the view and `margin` pixels round it, so labels coming into view with
/// a pan are already there. Each frame projects every label's anchor (a ground point) through
/// the frame's camera and draws its image, upright and unscaled, at the same offset from it:
/// a pan moves labels with the ground, rotation and tilt move their anchors. The labels are
/// placed again (`needsPlacement(for:settled:)`) when the camera has turned, tilted or zoomed
/// by more than the thresholds below, when the view has panned `repanDistance` pixels, and when
/// the camera settles (a frame of the same camera as the last), so a still view always shows a
/// fresh placement: no overlaps, every label that fits. Holds one placement: its memory is the
/// labels of one view and its margin.
final class LabelLayer {
    /// A placed label: its image, the ground point its anchor is on, the image's top-left
    /// corner and its collision boxes relative to the anchor's pixel.
    struct Label {
        var image: Pixmap
        var anchor: MapPoint
        var offset: Point
        var boxes: [PlacedLabel.Box]
    }

    /// Pixels placed round each side of the view.
    static let margin = 96.0
    /// Pixels the view's centre may move from where the labels were placed before they are placed
    /// again: two thirds of the margin, so labels entering at a leading edge were placed.
    static let repanDistance = 64.0
    /// Zoom levels of change before a new placement: 1/16, labels 100 px apart come at most
    /// 4.4 px closer (2^(1/16) − 1) before collisions are run again.
    static let rezoom = 1.0 / 16
    /// Degrees of rotation or tilt before a new placement: a street name's ends, 50 px from its
    /// anchor, move at most 1.7 px off a turned street.
    static let reorientation = 2.0

    private(set) var labels: [Label] = []
    /// The camera the labels were placed for; nil before the first placement.
    private(set) var placedFor: CameraState?
    /// Placements made so far.
    private(set) var placements = 0

    /// Drops the placement (what labels show changed).
    func removeAll() {
        labels = []
        placedFor = nil
    }

    /// Whether a frame of `state` places labels anew; `settled` when it is the camera of the
    /// last frame drawn.
    func needsPlacement(for state: CameraState, settled: Bool) -> Bool {
        guard let p = placedFor else { return true }
        if p == state { return false }
        if settled || p.viewSize != state.viewSize || p.projection != state.projection { return true }
        if abs(p.zoomLevel - state.zoomLevel) > Self.rezoom || abs(p.clippedTilt - state.clippedTilt) > Self.reorientation { return true }
        let turn = abs(p.orientation - state.orientation).truncatingRemainder(dividingBy: 360)
        if min(turn, 360 - turn) > Self.reorientation { return true }
        let centre = ScreenPoint(x: state.viewSize.width / 2, y: state.viewSize.height / 2)
        guard let old = state.point(for: p.geoCenter) else { return true }
        let dx = old.x - centre.x, dy = old.y - centre.y
        return (dx * dx + dy * dy).squareRoot() > Self.repanDistance
    }

    /// Places the labels of `features` for `state` with `painter` (its style, zoom and text),
    /// kept clear of the markers' pins in `overlays`.
    func place(_ features: MapFeatureIndex, overlays: [MapOverlay], for state: CameraState, painter: MapPainter) {
        let m = Self.margin
        let projection = MarginProjection(camera: CameraProjection(state), margin: m)
        let w = Int(state.viewSize.width.rounded() + 2 * m), h = Int(state.viewSize.height.rounded() + 2 * m)
        var painter = painter
        painter.drawsAttribution = false
        let placed = (try? painter.placedLabels(features, overlays: overlays, through: projection, width: w, height: h)) ?? []
        labels = placed.compactMap { l in
            guard let c = state.coordinate(at: ScreenPoint(x: l.anchor.x - m, y: l.anchor.y - m)) else { return nil }
            let boxes = l.boxes.map { PlacedLabel.Box(minX: $0.minX - l.anchor.x, minY: $0.minY - l.anchor.y, maxX: $0.maxX - l.anchor.x, maxY: $0.maxY - l.anchor.y) }
            return Label(image: l.image, anchor: MapPoint(c), offset: l.origin - l.anchor, boxes: boxes)
        }
        placedFor = state
        placements += 1
    }

    /// Takes the labels and icons of a style's symbol layers drawn for `state` (`snapshot`,
    /// nil: none): each symbol's pixels (those no symbol before it took) with its anchor's
    /// ground point, so a frame of this camera shows the snapshot's labels exactly and a
    /// moving frame moves each with its anchor. Symbols placed only within the view, no margin:
    /// a label coming in at an edge shows from the next placement.
    func place(symbols snapshot: StyleSnapshot?, for state: CameraState) {
        labels = []
        if let snapshot {
            let image = snapshot.image, width = image.width
            var taken = [Bool](repeating: false, count: width * image.height)
            for s in snapshot.symbols {
                guard let c = state.coordinate(at: ScreenPoint(x: s.anchor.x, y: s.anchor.y)) else { continue }
                let w = s.maxX - s.minX, h = s.maxY - s.minY
                // The bounds lie within the image, 1 px or more a side.
                var crop = try! Pixmap(width: w, height: h)
                crop.withUnsafeMutableBytes { out in
                    image.bytes.withUnsafeBytes { src in
                        for y in 0..<h {
                            for x in 0..<w {
                                let i = (s.minY + y) * width + s.minX + x
                                guard !taken[i], src[i * 4 + 3] != 0 else { continue }
                                taken[i] = true
                                for k in 0..<4 { out[(y * w + x) * 4 + k] = src[i * 4 + k] }
                            }
                        }
                    }
                }
                let offset = Point(x: Double(s.minX) - s.anchor.x, y: Double(s.minY) - s.anchor.y)
                labels.append(Label(image: crop, anchor: MapPoint(c), offset: offset,
                                    boxes: [PlacedLabel.Box(minX: offset.x, minY: offset.y, maxX: offset.x + Double(w), maxY: offset.y + Double(h))]))
            }
        }
        placedFor = state
        placements += 1
    }

    /// The labels' collision boxes where a frame through `projection` draws them, pixels.
    func boxes(through projection: CameraProjection) -> [[PlacedLabel.Box]] {
        labels.compactMap { l in
            guard let p = projection.pixel(for: l.anchor) else { return nil }
            let x = (p.x + l.offset.x).rounded() - l.offset.x, y = (p.y + l.offset.y).rounded() - l.offset.y
            return l.boxes.map { PlacedLabel.Box(minX: $0.minX + x, minY: $0.minY + y, maxX: $0.maxX + x, maxY: $0.maxY + y) }
        }
    }

    /// Draws every label whose anchor `projection` shows, its image at whole pixels.
    /// - Complexity: O(labels + their images' pixels on screen).
    func draw(through projection: CameraProjection, on canvas: inout Canvas) {
        var pixmap = canvas.pixmap
        canvas = Self.placeholder // the frame's storage stays uniquely held while labels go on it
        draw(through: projection, on: &pixmap)
        canvas = Canvas(pixmap)
    }

    /// Holds a canvas's place while its pixmap is drawn on.
    private static let placeholder = Canvas(try! Pixmap(width: 1, height: 1))

    private func draw(through projection: CameraProjection, on pixmap: inout Pixmap) {
        let width = pixmap.width, height = pixmap.height
        pixmap.withUnsafeMutableBytes { out in
            let dst = UnsafeMutableRawPointer(out.baseAddress!)
            for l in labels {
                guard let p = projection.pixel(for: l.anchor) else { continue }
                let ox = Int((p.x + l.offset.x).rounded()), oy = Int((p.y + l.offset.y).rounded())
                let w = l.image.width, h = l.image.height
                let x0 = max(ox, 0), x1 = min(ox + w, width), y0 = max(oy, 0), y1 = min(oy + h, height)
                guard x0 < x1, y0 < y1 else { continue }
                l.image.bytes.withUnsafeBytes { src in
                    for y in y0..<y1 {
                        let s = src.baseAddress! + ((y - oy) * w + (x0 - ox)) * 4, d = dst + (y * width + x0) * 4
                        for i in 0..<(x1 - x0) {
                            let a = s.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                            guard a >> 24 != 0 else { continue }
                            let b = d.load(fromByteOffset: i * 4, as: UInt32.self)
                            d.storeBytes(of: Self.over(a, b), toByteOffset: i * 4, as: UInt32.self)
                        }
                    }
                }
            }
        }
    }

    /// Premultiplied source-over of two RGBA pixels (bytes R, G, B, A in memory order):
    /// `src + dst·(255 − αsrc)/255` per channel, two channels at a time in 16-bit lanes.
    @inline(__always)
    static func over(_ src: UInt32, _ dst: UInt32) -> UInt32 {
        let k = 255 - (src >> 24), mask: UInt32 = 0x00FF_00FF
        func scaled(_ v: UInt32) -> UInt32 {
            // v·k/255 in each lane, rounded: (t + 128 + (t + 128) >> 8) >> 8.
            let t = v &* k &+ 0x0080_0080
            return ((t &+ ((t >> 8) & mask)) >> 8) & mask
        }
        return src &+ (scaled(dst & mask) | scaled((dst >> 8) & mask) << 8)
    }
}

/// A camera's projection shifted by `margin` pixels right and down, so that a canvas
/// `2 × margin` larger than the view holds the view and a band round it.
struct MarginProjection: RenderProjection {
    let camera: CameraProjection
    let margin: Double

    var visibleWorldBounds: WorldRect? { camera.visibleWorldBounds }

    func pixel(for world: MapPoint) -> Point? {
        camera.pixel(for: world).map { Point(x: $0.x + margin, y: $0.y + margin) }
    }
}
