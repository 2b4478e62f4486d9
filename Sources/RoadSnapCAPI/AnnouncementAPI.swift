import RoadSnapCHeader
import RoadSnapCore

/// The host's announcement function and its user data (`rs_navigator_set_announcement_callback`).
struct CAnnouncementTarget: @unchecked Sendable {
    var fn: rs_announcement_fn
    var userData: UnsafeMutableRawPointer?
}

/// Forwards voice prompts of one navigator to the host's function (on the thread delivering the events).
final class CAnnouncementListener: NavigatorListener, @unchecked Sendable {
    let target = Locked<CAnnouncementTarget?>(nil)

    func navigator(_ navigator: Navigator, didAnnounce a: Announcement) {
        guard let t = target.withLock({ $0 }) else { return }
        let kind: rs_announcement_kind
        switch a.kind {
        case .early: kind = RS_ANNOUNCEMENT_EARLY
        case .preparation: kind = RS_ANNOUNCEMENT_PREPARATION
        case .now: kind = RS_ANNOUNCEMENT_NOW
        }
        a.text.withCString { text in
            InstructionText.short(a.step).withCString { short in
                InstructionText.secondary(a.step).withCString { secondary in
                    var c = rs_announcement(kind: Int32(kind.rawValue), step_index: Int32(a.stepIndex),
                                            distance: a.distanceMeters, trigger_distance: a.triggerDistanceMeters,
                                            time: a.time, text: text, short_text: short, secondary_text: secondary)
                    t.fn(t.userData, &c)
                }
            }
        }
    }
}

@implementation @c
public func rs_navigator_set_announcement_callback(_ navigator: OpaquePointer?, _ fn: rs_announcement_fn?,
                                                   _ userData: UnsafeMutableRawPointer?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let n = try HandleTable.shared.lookup(navigator, .navigator, as: NavigatorObject.self)
        n.announcements.target.withLock { $0 = fn.map { CAnnouncementTarget(fn: $0, userData: userData) } }
    }
}

@implementation @c
public func rs_navigator_set_announcement_units(_ navigator: OpaquePointer?, _ units: Int32) -> rs_status {
    apiCall { () throws(APIFailure) in
        let n = try HandleTable.shared.lookup(navigator, .navigator, as: NavigatorObject.self)
        let u: DistanceUnits
        switch units {
        case Int32(RS_UNITS_METRIC.rawValue): u = .metric
        case Int32(RS_UNITS_IMPERIAL.rawValue): u = .imperial
        case Int32(RS_UNITS_IMPERIAL_YARDS.rawValue): u = .imperialYards
        default:
            throw APIFailure(RS_E_INVALID_ARGUMENT,
                             "units \(units) is not RS_UNITS_METRIC (0), RS_UNITS_IMPERIAL (1) or RS_UNITS_IMPERIAL_YARDS (2)")
        }
        n.session.navigator.announcementOptions.units = u
    }
}
