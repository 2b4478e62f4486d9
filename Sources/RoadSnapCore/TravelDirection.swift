/// How an edge may be travelled, relative to its geometry's direction. (Its raw values are what the segment index
/// and the compiled map store.)
public enum TravelDirection: Int8, Hashable, Sendable {
    case both = 0
    case forward = 1
    case backward = -1
}
