import Foundation
import MapView
import SystemIO

/// The world base of snapshots and the map view: Natural Earth countries and cities from
/// `$LOCATIONKIT_DATA/world` (default `../shared/data/world`; CONTRACT "Snapshots").
enum WorldBaseFiles {
    static let countries = "ne_110m_countries.geojson"
    static let cities = "ne_cities.geojson"

    /// The base, or `.empty` (plain ocean and land) when the folder or its countries file is
    /// missing: never a failure. A damaged file is an error naming it.
    static func load(environment: [String: String]) throws -> WorldBase {
        let folder = (environment["LOCATIONKIT_DATA"] ?? "../shared/data") + "/world"
        let countriesPath = folder + "/" + countries, citiesPath = folder + "/" + cities
        guard (try? CommandLineFiles.checkInput(countriesPath)) != nil else { return .empty }
        let hasCities = (try? CommandLineFiles.checkInput(citiesPath)) != nil
        do {
            return try WorldBase(countriesGeoJSON: Data(try FileDescriptor.readContents(of: countriesPath)),
                                 citiesGeoJSON: hasCities ? Data(try FileDescriptor.readContents(of: citiesPath)) : nil)
        } catch {
            throw CommandLineFileError.damaged("world base", folder, error)
        }
    }
}
