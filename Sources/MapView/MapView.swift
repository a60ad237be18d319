public import GeoCore
public import MapCamera
import MapData
public import MapRenderer
public import Compass
public import MapStyle
public import StyleRendering

import Platform

/// The map view (the seed's `NMAMapView`): a camera controller, the renderer, map objects,
/// layer / POI / pedestrian visibility and render pausing. It draws frames into an RGBA buffer
/// on demand, and draws nothing when nothing changed since the last frame.
///
/// Time comes from the caller: `render(at:)` advances the camera's animations to the instant
/// given (an injected clock), never reading one itself. Not thread-safe: own it from one task
/// or actor (the live page's `MapSession` does).
public final class MapView<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// The camera: combined setter with animations, gestures, event blocks.
    public let camera: CameraController<Instant>
    /// The style the view draws through (`init(camera:map:)`): its ground tiles are the
    /// style's non-symbol layers, its labels and icons the symbol layers placed for the view's
    /// camera. Nil: the legacy painter draws `features` in `style`'s colours. Runtime style
    /// changes made on it show in the next frame: a non-symbol layer's redraws the tiles, a
    /// symbol layer's the labels. The style path draws Mercator (a globe camera is drawn flat).
    public let map: Map?
    /// The map's revisions the tiles and labels were drawn at.
    private var mapRevisions: (ground: Int, symbols: Int)
    /// Ground tiles drawn so far (a tile composed again from the cache is not counted).
    public private(set) var tilesRendered = 0
    /// The style path's tiles drawn beside one asked for and not asked for yet (`renderTile`):
    /// at most 24 (6 MB), dropped with the tiles.
    private var blockTiles: [RasterTileCache.Key: Pixmap] = [:]
    /// Whether a moving frame of the style path that drew no tile and placed no labels draws
    /// one 2 × 2 block of tiles next to the view, the nearest ahead of the pan first (true by
    /// default), so a pan finds its tiles drawn instead of drawing a row of them in one frame.
    public var prefetchesTiles = true
    /// The tiles the last frame composed from tiles showed.
    private(set) var shownTiles: Set<RasterTileCache.Key> = []
    /// The map data drawn by the legacy painter, and picked.
    public var features: MapFeatureIndex { didSet { groundChanged() } }
    /// Countries and cities under the data at low zooms and on the globe.
    public var worldBase: WorldBase { didSet { groundChanged() } }
    /// Colours and what is shown: `style.hidden` layer categories, POI and pedestrian classes.
    public var style: MapRenderer.MapStyle { didSet { groundChanged() } }
    #if canImport(CFreeType) && canImport(CHarfBuzz)
    /// Draws labels; nil draws none.
    public var text: TextRenderer? { didSet { labelsChanged() } }
    #endif
    /// The position indicator, drawn over the objects when visible.
    public let positionIndicator = PositionIndicator()
    /// Told of taps (`tap(at:radius:)`) and what they picked; held weakly.
    public weak var delegate: (any MapViewDelegate)?
    /// False pauses rendering (the seed's `renderAllowed`): `render(at:)` draws nothing.
    public var renderAllowed = true
    /// False while the app or page is inactive: rendering pauses as with `renderAllowed`.
    public var isActive = true

    /// How the camera follows the position indicator's position.
    public enum FollowMode: Sendable {
        /// The camera stays where it is.
        case none
        /// The camera centres on each new position.
        case follow
        /// The camera centres on each new position and turns so the heading points up.
        case followWithCourse
    }

    /// The follow mode; a user gesture sets it back to `.none`.
    public var followMode = FollowMode.none

    /// The last frame drawn: premultiplied RGBA, the camera's view size.
    public private(set) var frame: Pixmap?
    /// Frames drawn so far (a frame skipped because nothing changed is not counted).
    public private(set) var framesDrawn = 0

    /// Whether flat frames (Mercator, and the globe from zoom 12) compose their ground from
    /// cached raster tiles instead of rasterizing the map's geometry anew (true by default;
    /// false draws every frame directly, as `snapshot()` does).
    public var composesFromTiles = true
    /// The most raster tiles kept, 266 KB each (default 160, about 43 MB). A frame that needs
    /// more (a very large view) is drawn directly.
    public var tileCacheCapacity: Int {
        get { tileCache.capacity }
        set { tileCache.capacity = max(newValue, 0); tileCache.removeAll() }
    }
    /// The most missing tiles a frame draws where tiles of another zoom or world-base detail
    /// still cover their ground (default 2, a few milliseconds each); tiles nothing covers are
    /// always drawn. Crossing a tile zoom thus spreads the new tiles over frames instead of
    /// drawing the whole view in one.
    public var tilesDrawnPerFrame = 2
    /// Labels of moving frames, placed once and redrawn at their anchors (with `composesFromTiles`).
    let labelLayer = LabelLayer()
    /// Raster tiles held now.
    public var cachedTileCount: Int { tileCache.count }
    let tileCache = RasterTileCache(capacity: 160)

    private(set) var objects: [(id: MapObjectID, object: MapObject)] = []
    private var nextObjectID = 0
    /// Bumped by every change that is not the camera's.
    private var revision = 0
    private var drawn: (camera: CameraState, revision: Int)?

    /// - Throws: `MapViewError` when the camera's view is larger than a frame can be.
    public convenience init(camera: CameraState, features: MapFeatureIndex, worldBase: WorldBase = .empty, style: MapRenderer.MapStyle = .day) throws(MapViewError) {
        try self.init(camera: camera, features: features, worldBase: worldBase, style: style, map: nil)
    }

    /// A view of `map`: its style drawn for the camera (the style path, `map`).
    /// - Throws: `MapViewError` when the camera's view is larger than a frame can be.
    public convenience init(camera: CameraState, map: Map) throws(MapViewError) {
        try self.init(camera: camera, features: MapFeatureIndex([]), worldBase: .empty, style: .day, map: map)
    }

    /// A view of `features` through the built-in style (`DefaultStyle`, day unless `scheme`
    /// says): a `Map` over `FeatureMapSource(features)`, labels in the glyph ranges
    /// `glyphRange` makes (nil: none). The features are also picked.
    /// - Throws: `MapViewError` when the camera's view is larger than a frame can be, or the
    ///   features cannot be tiled (`.invalidValue`).
    public convenience init(camera: CameraState, features: MapFeatureIndex, scheme: DefaultStyle.Scheme, options: DefaultStyle.Options = DefaultStyle.Options(),
                            glyphRange: ((_ fontStack: String, _ start: UInt32) throws -> [UInt8])?) throws(MapViewError) {
        let map: Map
        do {
            map = try Map(scheme: scheme, options: options, data: try FeatureMapSource(features: features.features, name: "features"), glyphRange: glyphRange)
        } catch {
            throw MapViewError(.invalidValue, "the features cannot be drawn in the default style: \(error)")
        }
        try self.init(camera: camera, features: features, worldBase: .empty, style: .day, map: map)
    }

    private init(camera: CameraState, features: MapFeatureIndex, worldBase: WorldBase, style: MapRenderer.MapStyle, map: Map?) throws(MapViewError) {
        try Self.checkFrameSize(camera.viewSize)
        self.camera = CameraController(state: camera)
        self.features = features
        self.worldBase = worldBase
        self.style = style
        self.map = map
        mapRevisions = (map?.groundRevision ?? 0, map?.symbolRevision ?? 0)
        positionIndicator.onChange = { [weak self] in self?.changed() }
        _ = self.camera.respond(to: .gestureBegan) { [weak self] _, _ in
            self?.followMode = .none
            return true
        }
    }

    /// Shows a new fix from a positioning manager on the indicator and moves the camera as the
    /// follow mode says (at once: a follow is no animation).
    public func showPosition(raw: Location?, mapMatched: Location?, current: Location?, at now: Instant) {
        positionIndicator.update(raw: raw, mapMatched: mapMatched, current: current)
        guard followMode != .none, let location = positionIndicator.location else { return }
        let orientation = followMode == .followWithCourse ? positionIndicator.heading : nil
        // A fix that is not a valid camera (it cannot be: it is a Coordinate) leaves the camera.
        try? camera.set(CameraOptions(geoCenter: location.coordinate, orientation: orientation), animation: .none, at: now)
    }

    /// Shows a compass heading from a positioning manager (`didUpdateHeading`): the indicator
    /// points to it in `.compass` mode, and the camera turns to it when following with course.
    public func showHeading(_ heading: Heading, at now: Instant) {
        positionIndicator.update(heading: heading)
        guard followMode == .followWithCourse, let h = positionIndicator.heading else { return }
        try? camera.set(CameraOptions(orientation: h), animation: .none, at: now)
    }

    func changed() { revision &+= 1 }

    /// What the tiles show changed: they are drawn again, and the labels placed again.
    private func groundChanged() {
        tileCache.removeAll()
        blockTiles.removeAll()
        labelsChanged()
    }

    /// What labels show or avoid (the data, the style, the text, markers' pins) changed.
    private func labelsChanged() {
        labelLayer.removeAll()
        changed()
    }

    // MARK: Objects

    /// Adds an object; it is drawn from the next frame on.
    @discardableResult
    public func add(_ object: MapObject) -> MapObjectID {
        let id = MapObjectID(value: nextObjectID)
        nextObjectID += 1
        objects.append((id, object))
        labelsChanged()
        return id
    }

    /// Replaces an object; false when there is no such object.
    @discardableResult
    public func replace(_ id: MapObjectID, with object: MapObject) -> Bool {
        guard let i = objects.firstIndex(where: { $0.id == id }) else { return false }
        objects[i].object = object
        labelsChanged()
        return true
    }

    /// Removes an object; false when there is no such object.
    @discardableResult
    public func remove(_ id: MapObjectID) -> Bool {
        guard let i = objects.firstIndex(where: { $0.id == id }) else { return false }
        objects.remove(at: i)
        labelsChanged()
        return true
    }

    /// The objects, in drawing order.
    public var mapObjects: [MapObject] { objects.map(\.object) }

    // MARK: Frames

    /// Advances the camera to `now` and draws a frame into `frame` when anything changed since
    /// the last one, or the last one still showed tiles of another zoom where its own were not
    /// drawn yet (`tilesDrawnPerFrame`), and rendering is allowed and active.
    /// - Returns: whether a frame was drawn.
    @discardableResult
    public func render(at now: Instant) -> Bool {
        camera.advance(to: now)
        guard renderAllowed, isActive else { return false }
        if let map, (map.groundRevision, map.symbolRevision) != mapRevisions {
            // A runtime style change: only what it changed is drawn again.
            if map.groundRevision != mapRevisions.ground {
                tileCache.removeAll()
                blockTiles.removeAll()
            }
            if map.symbolRevision != mapRevisions.symbols { labelLayer.removeAll() }
            mapRevisions = (map.groundRevision, map.symbolRevision)
            changed()
        }
        // A frame that showed stand-ins for tiles not drawn yet is followed by another.
        // A frame that showed stand-ins for tiles not drawn yet is followed by another, and so is
        // one whose labels were placed for another camera (the camera has settled: place them).
        let settled = drawn?.camera == camera.state
        if let drawn, settled, drawn.revision == revision, tileCache.pending == 0, !labelsStale(camera.state) { return false }
        var reuse: Pixmap? = nil
        swap(&reuse, &frame) // the old frame's storage, uniquely held, is written over
        frame = draw(camera.state, reusing: &reuse, settled: settled)
        drawn = (camera.state, revision)
        framesDrawn += 1
        return true
    }

    /// The view as it is now, with its objects and indicator, drawn whether or not rendering
    /// is paused (the seed's snapshot), its geometry rasterized directly at the camera's own
    /// zoom. The camera is not advanced.
    public func snapshot() -> Pixmap {
        var none: Pixmap? = nil
        return draw(camera.state, reusing: &none, settled: true, direct: true)
    }

    /// The renderer's zoom (256-pixel tiles) for a camera zoom (MapLibre's 512-pixel world).
    public static func rendererZoom(cameraZoom: Double) -> Double { cameraZoom + 1 }

    /// Draws a frame: the ground composed from cached tiles where the drawing is flat and the
    /// frame's tiles fit the cache, else rasterized directly (the globe below zoom 12); then
    /// labels (placed once and moved, `labelLayer`), objects and the indicator in screen space;
    /// `direct` (a snapshot) rasterizes everything for this camera alone and leaves the caches.
    /// `reuse` is a previous frame whose storage may be written over.
    private func draw(_ state: CameraState, reusing reuse: inout Pixmap?, settled: Bool, direct: Bool = false) -> Pixmap {
        let tilesBefore = tilesRendered
        var idle = !direct && !settled // a moving frame; no longer idle once it draws a tile or places labels
        let projection = CameraProjection(state)
        var painter = MapPainter(style: style, zoom: min(max(Self.rendererZoom(cameraZoom: state.zoomLevel), 0), 24))
        painter.clearsCanvas = false
        #if canImport(CFreeType) && canImport(CHarfBuzz)
        painter.text = text
        #endif
        var canvas: Canvas
        if !direct, let ground = composedGround(state, reusing: &reuse) {
            canvas = Canvas(ground)
            painter.passes = [.symbols]
        } else if let map {
            idle = false
            canvas = Canvas(Self.styleImage(map, state, layers: .ground, background: WorldBase.space))
            painter.passes = [.symbols]
        } else {
            // The view size was checked at init, so the canvas can be made.
            canvas = try! Canvas(width: Int(state.viewSize.width.rounded()), height: Int(state.viewSize.height.rounded()), background: WorldBase.space)
            let detail = WorldBase.Detail(cameraZoom: state.zoomLevel)
            let earth = Self.earthOutline(state)
            canvas.fill(Path(polyline: earth, closed: true), color: detail == .none ? style.land : WorldBase.ocean)
            let flat = state.projection == .mercator ? MapPoint(state.geoCenter).x : nil
            worldBase.draw(through: projection, flatCentreX: flat, land: style.land, detail: detail, on: &canvas)
        }
        // The renderer's pins for markers without an image (placed with its labels); every
        // other object is drawn over the map in the order added.
        var pins: [MapOverlay] = []
        for (_, object) in objects { if case .marker(let m) = object, m.image == nil { pins.append(.marker(m.coordinate)) } }
        if let map, direct {
            canvas.withPixmap { $0.draw(Self.styleImage(map, state, layers: .symbols, background: .transparent), at: Point(x: 0, y: 0)) }
        } else if let map {
            if labelLayer.needsPlacement(for: state, settled: settled) {
                labelLayer.place(symbols: (try? map.snapshot(camera: Self.styleCamera(state), layers: .symbols)), for: state)
                idle = false
            }
            labelLayer.draw(through: projection, on: &canvas)
        } else if !direct, cachesLabels {
            if labelLayer.needsPlacement(for: state, settled: settled) { labelLayer.place(features, overlays: pins, for: state, painter: painter) }
            labelLayer.draw(through: projection, on: &canvas)
            painter.drawsLabels = false
        }
        if map == nil {
            painter.paint(features, overlays: pins, through: projection, on: &canvas)
        } else if !pins.isEmpty {
            // The style path's pins: the legacy painter's, over no features.
            painter.paint(MapFeatureIndex([]), overlays: pins, through: projection, on: &canvas)
        }
        for (_, object) in objects {
            switch object {
            case .polyline(let l): ObjectDrawing.draw(l, projection, &canvas)
            case .polygon(let p): ObjectDrawing.draw(p, projection, &canvas)
            case .circle(let c): ObjectDrawing.draw(c, projection, &canvas)
            case .marker: continue
            }
        }
        positionIndicator.drawAccuracy(through: projection, on: &canvas)
        positionIndicator.drawSymbol(through: projection, on: &canvas)
        var pixmap = canvas.pixmap
        for (_, object) in objects {
            if case .marker(let m) = object, let image = m.image, let p = projection.pixel(for: MapPoint(m.coordinate)) {
                let anchor = m.anchor ?? Point(x: Double(image.width) / 2, y: Double(image.height))
                pixmap.draw(image, at: Point(x: p.x - anchor.x, y: p.y - anchor.y))
            }
        }
        if let map, idle, prefetchesTiles, tilesRendered == tilesBefore, let previous = drawn?.camera { prefetchTiles(state, after: previous, map) }
        return pixmap
    }

    /// Draws the 2 × 2 block of the tile next to the last frame's tiles (not shown, not held,
    /// ahead of the view's centre) nearest a point 8 tiles ahead of the centre in the direction
    /// the camera moved from `previous`, and keeps its tiles. Nothing when the centre did not move.
    private func prefetchTiles(_ state: CameraState, after previous: CameraState, _ map: Map) {
        guard let z = shownTiles.first?.z else { return }
        let n = 1 << z, scale = Double(n)
        let now = MapPoint(state.geoCenter), then = MapPoint(previous.geoCenter)
        var dx = now.x - then.x, dy = now.y - then.y
        if dx > 0.5 { dx -= 1 } else if dx < -0.5 { dx += 1 } // across the antimeridian
        let length = (dx * dx + dy * dy).squareRoot()
        guard length > 0 else { return }
        let ahead = (x: now.x * scale + 8 * dx / length, y: now.y * scale + 8 * dy / length)
        var best: (key: RasterTileCache.Key, distance: Double)?
        for key in shownTiles {
            for (ox, oy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] where (0..<n).contains(key.y + oy) {
                let k = RasterTileCache.Key(z: z, x: ((key.x + ox) % n + n) % n, y: key.y + oy, base: key.base)
                guard !shownTiles.contains(k), tileCache.peek(k) == nil else { continue }
                // The tile's centre, unwrapped next to the shown one, against the point ahead.
                func offset(_ x: Double) -> Double {
                    let w = x.truncatingRemainder(dividingBy: scale)
                    return w > scale / 2 ? w - scale : w < -scale / 2 ? w + scale : w
                }
                // Only tiles ahead of the view's centre: a pan leaves those behind it.
                let fx = offset(Double(key.x + ox) + 0.5 - now.x * scale), fy = Double(k.y) + 0.5 - now.y * scale
                guard fx * dx + fy * dy > 0 else { continue }
                let wx = offset(Double(key.x + ox) + 0.5 - ahead.x), cy = Double(k.y) + 0.5 - ahead.y
                let distance = wx * wx + cy * cy
                if best == nil || distance < best!.distance { best = (k, distance) }
            }
        }
        guard let key = best?.key else { return }
        tilesRendered += 1
        tileCache.insert(styleTile(key, map), for: key)
        for j in 0..<2 {
            for i in 0..<2 {
                let k = RasterTileCache.Key(z: z, x: (key.x & ~1) + i, y: (key.y & ~1) + j, base: key.base)
                guard let tile = blockTiles.removeValue(forKey: k) else { continue }
                tilesRendered += 1
                tileCache.insert(tile, for: k)
            }
        }
    }

    /// Whether frames draw labels from `labelLayer`: when they compose from tiles and have
    /// text, or draw a style (whose labels are always placed for the frame's camera).
    private var cachesLabels: Bool {
        if map != nil { return true }
        #if canImport(CFreeType) && canImport(CHarfBuzz)
        return composesFromTiles && text != nil
        #else
        return false
        #endif
    }

    /// The style's camera for a view's: MapLibre's zoom, bearing and pitch are the camera's
    /// zoom level, orientation and (zoom-limited) tilt; one CSS pixel per view pixel.
    static func styleCamera(_ state: CameraState) -> StyleCamera {
        StyleCamera(longitude: state.geoCenter.longitude, latitude: state.geoCenter.latitude, zoom: state.zoomLevel, bearing: state.orientation,
                    pitch: state.clippedTilt, width: Int(state.viewSize.width.rounded()), height: Int(state.viewSize.height.rounded()))
    }

    /// The layers `layers` of `map` drawn for the view's camera over `background`; only
    /// `background` where the map cannot be drawn (a zoom outside MapLibre's 0…24).
    private static func styleImage(_ map: Map, _ state: CameraState, layers: Map.Layers, background: Color) -> Pixmap {
        let camera = styleCamera(state)
        // The view size was checked at init, so the canvas can be made.
        var canvas = try! Canvas(width: camera.width, height: camera.height, background: background)
        if let image = try? map.snapshot(camera: camera, layers: layers).image { canvas.withPixmap { $0.draw(image, at: Point(x: 0, y: 0)) } }
        return canvas.pixmap
    }

    /// Whether the labels were placed for another camera than `state`.
    private func labelsStale(_ state: CameraState) -> Bool { cachesLabels && labelLayer.placedFor != state }

    /// The ground of a flat frame composed from cached tiles, or nil when the frame is drawn
    /// directly (the globe below zoom 12, tiles off, more tiles than the cache holds).
    private func composedGround(_ state: CameraState, reusing reuse: inout Pixmap?) -> Pixmap? {
        guard composesFromTiles, let rows = GroundRows(state) else {
            tileCache.frameDrawnDirectly()
            return nil
        }
        let width = Int(state.viewSize.width.rounded()), height = Int(state.viewSize.height.rounded())
        // The style path's tiles are drawn at MapLibre zoom z − 1, so z is at least 1; the world
        // base is the legacy painter's only.
        let z = max(TileCompositor.tileZoom(cameraZoom: state.zoomLevel), map == nil ? 0 : 1)
        let base = map == nil ? WorldBase.Detail(cameraZoom: state.zoomLevel) : .none
        let keys = TileCompositor.tiles(rows, width: width, height: height, zoom: z, base: base)
        shownTiles = keys
        let centre = MapPoint(state.geoCenter), n = Double(1 << z)
        guard let tiles = tileCache.tiles(keys, budget: tilesDrawnPerFrame, centre: (centre.x * n, centre.y * n), render: renderTile) else { return nil }
        var pixmap: Pixmap
        if let old = reuse, old.width == width, old.height == height {
            pixmap = old
            reuse = nil
        } else {
            // The view size was checked at init.
            pixmap = try! Pixmap(width: width, height: height)
        }
        TileCompositor.compose(rows, zoom: z, base: base, tiles: tiles, space: WorldBase.space, into: &pixmap)
        return pixmap
    }

    /// One raster tile of the ground at tile zoom z (the renderer's): the world base under
    /// the data in the key's detail (the camera's, as a direct frame draws it), the map's
    /// geometry without labels, and a one-pixel gutter.
    private func renderTile(_ key: RasterTileCache.Key) -> Pixmap {
        let n = Double(1 << key.z), stored = RasterTileCache.storedSide
        let centre = WebMercator.coordinate(worldX: (Double(key.x) + 0.5) / n, worldY: (Double(key.y) + 0.5) / n)
        tilesRendered += 1
        if let map { return styleTile(key, map) }
        // A tile zoom is 0…24 and its side fixed, so the viewport and canvas can be made.
        let viewport = try! MercatorViewport(center: centre, zoom: Double(key.z), width: stored, height: stored)
        var canvas = try! Canvas(width: stored, height: stored, background: key.base == .none ? style.land : WorldBase.ocean)
        worldBase.draw(through: viewport, flatCentreX: viewport.center.x, land: style.land, detail: key.base, on: &canvas)
        var painter = MapPainter(style: style, zoom: Double(key.z))
        painter.clearsCanvas = false
        painter.passes = [.geometry]
        painter.paint(features, through: viewport, on: &canvas)
        return canvas.pixmap
    }

    /// A tile of the style path: the style's ground layers drawn for the 2 × 2 block of tiles
    /// it is in (the quarter of a MapLibre tile of zoom z − 1 each, so one snapshot reads each
    /// vector tile's features once for four tiles: 2.x times less than a snapshot per tile),
    /// at MapLibre zoom z − 1 (as `StyleCamera(block:)` draws tiles of zoom z), with a 1-px
    /// gutter round the block; each tile is cut from it with its gutter. The others are kept
    /// for when they are asked for. A block the map cannot draw is transparent (space shows).
    private func styleTile(_ key: RasterTileCache.Key, _ map: Map) -> Pixmap {
        if let tile = blockTiles.removeValue(forKey: key) { return tile }
        let side = RasterTileCache.side, stored = RasterTileCache.storedSide
        let bx = key.x & ~1, by = key.y & ~1, n = Double(1 << key.z) // z ≥ 1 on the style path: blocks lie within the world
        let centre = WebMercator.coordinate(worldX: Double(bx + 1) / n, worldY: Double(by + 1) / n)
        let camera = StyleCamera(longitude: centre.longitude, latitude: centre.latitude, zoom: Double(key.z) - 1, width: 2 * side + 2, height: 2 * side + 2)
        // The sides are fixed and within range, so the pixmaps can be made.
        let block = (try? map.snapshot(camera: camera, layers: .ground).image) ?? (try! Pixmap(width: 2 * side + 2, height: 2 * side + 2))
        if blockTiles.count > 24 { blockTiles.removeAll() }
        var asked: Pixmap? = nil
        for j in 0..<2 {
            for i in 0..<2 {
                var tile = try! Pixmap(width: stored, height: stored)
                tile.withUnsafeMutableBytes { out in
                    block.bytes.withUnsafeBytes { src in
                        for y in 0..<stored {
                            let from = ((j * side + y) * block.width + i * side) * 4
                            UnsafeMutableRawPointer(out.baseAddress! + y * stored * 4).copyMemory(from: src.baseAddress! + from, byteCount: stored * 4)
                        }
                    }
                }
                let k = RasterTileCache.Key(z: key.z, x: bx + i, y: by + j, base: key.base)
                if k == key { asked = tile } else if tileCache.peek(k) == nil { blockTiles[k] = tile }
            }
        }
        return asked!
    }

    /// Rays from the view's centre, for the outline of the Earth on screen.
    static var outlineRays: Int { 360 }

    /// The outline of what shows Earth on screen, as a polygon: along each of 360 rays from the
    /// view's centre and the four towards its corners, the last point showing Earth before the view's edge (bisected to a
    /// hundredth of a pixel). The rest is space around the globe or sky above a tilted horizon.
    /// Exact where the Earth seen is star-shaped about the centre, as a globe's disk and a
    /// horizon's half-plane are.
    static func earthOutline(_ state: CameraState) -> [Point] {
        let w = state.viewSize.width, h = state.viewSize.height
        let c = ScreenPoint(x: w / 2, y: h / 2)
        guard state.coordinate(at: c) != nil else { return [] }
        let corners = [atan2(h, w), atan2(h, -w), atan2(-h, -w), atan2(-h, w)].map { $0 < 0 ? $0 + 2 * .pi : $0 }
        let angles = ((0..<outlineRays).map { 2 * Double.pi * Double($0) / Double(outlineRays) } + corners).sorted()
        return angles.map { a in
            let dx = cos(a), dy = sin(a)
            // Distance from the centre to the view's edge along the ray, plus a pixel.
            let edge = min(dx == 0 ? .infinity : (w / 2) / abs(dx), dy == 0 ? .infinity : (h / 2) / abs(dy)) + 1
            func at(_ t: Double) -> ScreenPoint { ScreenPoint(x: c.x + t * dx, y: c.y + t * dy) }
            var inside = 0.0, outside = edge
            if state.coordinate(at: at(edge)) != nil {
                inside = edge
            } else {
                while outside - inside > 0.01 {
                    let m = (inside + outside) / 2
                    if state.coordinate(at: at(m)) != nil { inside = m } else { outside = m }
                }
            }
            let p = at(inside)
            return Point(x: p.x, y: p.y)
        }
    }
}

/// A map view's error: a `Code` and a message (STYLE: errors as structs).
public struct MapViewError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable {
        let name: String
        public static let invalidViewSize = Code(name: "invalidViewSize")
        public static let invalidValue = Code(name: "invalidValue")
    }

    public let code: Code
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension Pixmap {
    /// Draws `image` with its top-left corner at `origin` (rounded to whole pixels),
    /// source-over; the parts outside are skipped.
    mutating func draw(_ image: Pixmap, at origin: Point) {
        let ox = Int(origin.x.rounded()), oy = Int(origin.y.rounded())
        let one: [Float] = [1]
        for y in 0..<image.height where (0..<height).contains(oy + y) {
            for x in 0..<image.width where (0..<width).contains(ox + x) {
                let c = image.color(x: x, y: y)
                guard c.alpha > 0 else { continue }
                one.withUnsafeBufferPointer { composite(c, row: oy + y, x: ox + x, coverage: $0) }
            }
        }
    }
}

/// How map objects are drawn over the map.
enum ObjectDrawing {
    /// A polyline with a white casing a pixel wider on each side, round joins and caps.
    static func draw(_ l: MapPolyline, _ projection: CameraProjection, _ canvas: inout Canvas) {
        var path = Path()
        for piece in projection.pixelLines(l.coordinates.map(MapPoint.init)) { path.append(Path(polyline: piece)) }
        canvas.stroke(path, style: StrokeStyle(width: l.width + 2), color: .white)
        canvas.stroke(path, style: StrokeStyle(width: l.width), color: l.color)
    }

    static func draw(_ p: MapPolygonOverlay, _ projection: CameraProjection, _ canvas: inout Canvas) {
        let ring = projection.pixelRing(p.polygon.exterior)
        guard ring.count > 2 else { return }
        var path = Path(polyline: ring, closed: true)
        for hole in p.polygon.holes {
            let h = projection.pixelRing(hole)
            if h.count > 2 { path.append(Path(polyline: h, closed: true)) }
        }
        canvas.fill(path, color: p.fill, rule: .evenOdd)
        if let stroke = p.stroke { canvas.stroke(path, style: StrokeStyle(width: p.strokeWidth), color: stroke) }
    }

    /// Sides of the polygon a ground circle is drawn as.
    static var circleSides: Int { 72 }

    /// A circle on the ground: the polygon through the points `radius` away (geodesic, WGS84)
    /// every 5°, so any projection bends it as the ground is bent.
    static func draw(_ c: MapCircle, _ projection: CameraProjection, _ canvas: inout Canvas) {
        draw(MapPolygonOverlay(ring(c), fill: c.fill, stroke: c.stroke, strokeWidth: circleStrokeWidth), projection, &canvas)
    }

    /// A circle's outline width, pixels.
    static var circleStrokeWidth: Double { 1.5 }

    /// The points `radius` away from a circle's centre every 5° (geodesic, WGS84).
    static func ring(_ c: MapCircle) -> [Coordinate] {
        (0..<circleSides).map { c.center.coordinate(at: c.radius, facing: Bearing(degrees: 360 * Double($0) / Double(circleSides))) }
    }

}
