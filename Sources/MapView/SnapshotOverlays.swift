public import GeoCore
public import MapRenderer

extension MapRenderer.MapStyle {
    /// The day style with the legacy snapshot's switches (`geo snapshot --hide`, `--show-poi`,
    /// `--show-pedestrian`, `--language`; what `DefaultStyle.Options(hiding:poiClasses:pedestrianClasses:)`
    /// is for the built-in MapLibre styles): `hidden` categories left out; POIs and pedestrian
    /// features only of the classes named, every class for "all"; labels in OSM `name:LANG`
    /// where a feature has it.
    public static func day(hiding hidden: Set<MapCategory>, poiClasses: Set<String>, pedestrianClasses: Set<String>,
                           language: String?) -> MapRenderer.MapStyle {
        var style = MapRenderer.MapStyle.day
        style.hidden = hidden
        style.showsAllPOIs = poiClasses.contains("all")
        style.shownPOIClasses = poiClasses
        style.showsAllPedestrianFeatures = pedestrianClasses.contains("all")
        style.shownPedestrianClasses = pedestrianClasses
        style.language = language
        return style
    }
}

extension MapView {
    /// Adds what a snapshot draws over the map in the same pass (`geo snapshot --track`,
    /// `--marker`), in order: each line of two or more points as a polyline (a GPX file's track
    /// segments and routes; a single point is no line and is left out), then a pin at each of
    /// `markers`.
    public func addOverlays(lines: [[Coordinate]], markers: [Coordinate]) {
        for line in lines where line.count > 1 { add(.polyline(MapPolyline(line))) }
        for marker in markers { add(.marker(MapMarker(marker))) }
    }
}
