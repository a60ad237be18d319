import GeoCore
import GeoTestSupport
import MapMatching
import RoadNetwork
import Testing
