import RoadSnapCore
import Testing

/// Unix time of a UTC date and time.
func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Double = 0) -> Double {
    // Days from civil (Howard Hinnant's algorithm).
    let yy = mo <= 2 ? y - 1 : y
    let era = (yy >= 0 ? yy : yy - 399) / 400
    let yoe = yy - era * 400
    let mp = (mo + 9) % 12
    let doy = (153 * mp + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    let days = era * 146097 + doe - 719468
    return Double(days) * 86400 + Double(h * 3600 + mi * 60) + s
}

@Suite struct SolarPositionTests {
    @Test func matchesTheNOAASpreadsheetExample() {
        // NOAA_Solar_Calculations_day: 2010-06-21 00:06 at UTC-7, latitude 40, longitude -105.
        let p = SolarPosition(time: utc(2010, 6, 21, 7, 6), latitude: 40, longitude: -105)
        #expect(abs(p.declination - 23.4383706) < 1e-4)
        #expect(abs(p.equationOfTime - -1.7153676) < 1e-3)
        #expect(abs(p.trueElevation - -26.5537621) < 1e-3)
        #expect(abs(p.apparentElevation - -26.5422164) < 1e-3)
        #expect(abs(p.azimuth - 1.0986712) < 1e-2)
        #expect(p.suggestedLightingMode == .lowLight)
    }

    @Test func agreesWithTheNRELSolarPositionAlgorithmExample() {
        // Reda & Andreas 2004 (NREL/TP-560-34302), Golden CO, 2003-10-17 12:30:30 at UTC-7:
        // topocentric zenith 50.11162, azimuth 194.34024 degrees (a different, more precise algorithm).
        let p = SolarPosition(time: utc(2003, 10, 17, 19, 30, 30), latitude: 39.742476, longitude: -105.1786)
        #expect(abs((90 - p.apparentElevation) - 50.11162) < 0.03)
        #expect(abs(p.azimuth - 194.34024) < 0.03)
        #expect(p.suggestedLightingMode == .normal)
    }

    @Test func sunriseAndSunsetAreWhereTheSunCrossesTheHorizon() throws {
        // Bellevue on the day of the Newson-Krumm drive, and Monaco at midsummer.
        for (lat, lon, day) in [(47.58, -122.13, utc(2009, 1, 17)), (43.73, 7.42, utc(2021, 6, 21))] {
            let events = try #require(SolarPosition.sunriseSunset(onDayOf: day + 43200, latitude: lat, longitude: lon))
            for t in [events.sunrise, events.sunset] {
                let e = SolarPosition(time: t, latitude: lat, longitude: lon).trueElevation
                #expect(abs(e - -0.833) < 0.02)
            }
        }
        // Published rise/set times (upper limb at -0.833 degrees) as tabulated in the Astro::Sunrise test data and
        // by timeanddate.com for London/Greenwich: 2013-01-01 08:05 / 16:02 UTC, 2013-06-21 03:43 / 20:21 UTC;
        // Quito (0 15 S, 78 35 W) 2013-03-21 06:18 / 18:25 at UTC-5.
        let cases: [(Double, Double, Double, Double, Double)] = [
            (51 + 28.0 / 60, 0, utc(2013, 1, 1), utc(2013, 1, 1, 8, 5), utc(2013, 1, 1, 16, 2)),
            (51 + 28.0 / 60, 0, utc(2013, 6, 21), utc(2013, 6, 21, 3, 43), utc(2013, 6, 21, 20, 21)),
            (-0.25, -(78 + 35.0 / 60), utc(2013, 3, 21), utc(2013, 3, 21, 11, 18), utc(2013, 3, 21, 23, 25)),
        ]
        for (lat, lon, day, rise, set) in cases {
            let e = try #require(SolarPosition.sunriseSunset(onDayOf: day + 43200, latitude: lat, longitude: lon))
            #expect(abs(e.sunrise - rise) <= 90)
            #expect(abs(e.sunset - set) <= 90)
        }
        // No sunrise in Tromsø at midwinter.
        #expect(SolarPosition.sunriseSunset(onDayOf: utc(2021, 12, 21, 12), latitude: 69.65, longitude: 18.96) == nil)
    }

    @Test func lightingTurnsLowBelowCivilTwilight() {
        // The sample drive (20:45 UTC = 12:45 PST) is in daylight; 03:00 UTC the same night is dark.
        #expect(SolarPosition(time: utc(2009, 1, 17, 20, 45), latitude: 47.58, longitude: -122.13)
            .suggestedLightingMode == .normal)
        #expect(SolarPosition(time: utc(2009, 1, 18, 3, 0), latitude: 47.58, longitude: -122.13)
            .suggestedLightingMode == .lowLight)
    }
}

@Suite struct SpeedAlertTests {
    /// Holds the evaluator's state between calls made inside expectations.
    final class Evaluator {
        var evaluator: SpeedAlertEvaluator
        init(_ e: SpeedAlertEvaluator) { evaluator = e }
        func callAsFunction(_ v: Double?, _ l: Double?, _ t: Double) -> (percentage: Double, severity: SpeedAlertSeverity) {
            evaluator.evaluate(speed: v, limitKmh: l, time: t)
        }
    }

    @Test func builtInThresholdsAreTenAndTwentyKmhOver() {
        let ev = Evaluator(SpeedAlertEvaluator())
        #expect(ev(50 / 3.6, 50, 0).severity == .notSpeeding)
        #expect(ev(50 / 3.6, 50, 0).percentage == 0)
        let slightly = ev(55 / 3.6, 50, 1)
        #expect(abs(slightly.percentage - 10) < 1e-9)
        #expect(slightly.severity == .notSpeeding)
        #expect(ev(61 / 3.6, 50, 2).severity == .minor)
        #expect(ev(71 / 3.6, 50, 3).severity == .major)
        #expect(ev(nil, 50, 4).percentage == -1)
        #expect(ev(nil, 50, 4).severity == .unknown)
        #expect(ev(20, nil, 5).percentage == -1)
        let us = Evaluator(SpeedAlertEvaluator(units: .imperial))
        #expect(us(64 * 0.44704, 60 * 1.609344, 0).severity == .notSpeeding)
        #expect(us(66 * 0.44704, 60 * 1.609344, 1).severity == .minor)
        #expect(us(71 * 0.44704, 60 * 1.609344, 2).severity == .major)
    }

    @Test func optionsUpgradeToMajorOnlyAfterTheDuration() throws {
        let options = try SpeedAlertOptions(minorSpeedingThresholdPercentage: 5, majorSpeedingThresholdPercentage: 20,
                                            severityUpgradeDurationSeconds: 5)
        let ev = Evaluator(SpeedAlertEvaluator(options: options))
        #expect(ev(52 / 3.6, 50, 0).severity == .notSpeeding)
        #expect(ev(54 / 3.6, 50, 1).severity == .minor)
        #expect(ev(65 / 3.6, 50, 2).severity == .minor)
        #expect(ev(65 / 3.6, 50, 6).severity == .minor)
        #expect(ev(65 / 3.6, 50, 7).severity == .major)
        // Dropping under the major threshold restarts the upgrade clock.
        #expect(ev(56 / 3.6, 50, 8).severity == .minor)
        #expect(ev(65 / 3.6, 50, 9).severity == .minor)
        #expect(throws: RoadSnapError.self) {
            try SpeedAlertOptions(minorSpeedingThresholdPercentage: 30, majorSpeedingThresholdPercentage: 20,
                                  severityUpgradeDurationSeconds: 0)
        }
    }
}

@Suite struct DelayAndThresholdTests {
    @Test func delayCategoryFollowsTheETARatio() throws {
        let c = DelayClassifier()
        func category(_ pieces: [(Double, Double, Double?)]) -> DelayCategory {
            var t = DelayClassifier.Totals()
            for (length, free, traffic) in pieces { t.add(length: length, freeFlowKmh: free, trafficKmh: traffic) }
            return c.category(t)
        }
        #expect(category([(1000, 50, 48)]) == .light)
        #expect(category([(1000, 50, 35)]) == .medium)  // ratio 1.43
        #expect(category([(1000, 50, 20)]) == .heavy)  // ratio 2.5
        #expect(category([(1000, 50, 90)]) == .light)  // faster than free flow counts as free flow
        #expect(category([(300, 50, 10), (700, 50, nil)]) == .noData)  // 30% covered
        #expect(category([(600, 50, 10), (400, 50, nil)]) == .heavy)
        #expect(category([]) == .noData)
        #expect(throws: RoadSnapError.self) { try TrafficFeed(speedsKmh: [1: -3]) }
        let feed = try TrafficFeed(speedsKmh: [42: 30])
        #expect(feed.speedKmh(for: .osmWay(42)) == 30)
        #expect(feed.speedKmh(for: .osmWay(43)) == nil)
    }

    @Test func reportsOnlyChangesPastTheThreshold() {
        var r = ThresholdReporter()
        func report(_ v: Double, _ t: Double) -> Bool { r.shouldReport(v, threshold: t) }
        #expect(report(100, 10))
        #expect(!report(95, 10))
        #expect(report(90, 10))
        #expect(!report(81, 10))
        #expect(report(80, 10))
        var off = ThresholdReporter()
        let disabled = off.shouldReport(100, threshold: .greatestFiniteMagnitude)
        #expect(!disabled)
        r.reset()
        #expect(report(79, 10))
    }
}

@Suite struct VirtualClockTests {
    final class Log: @unchecked Sendable { var times: [Double] = [] }

    @Test func firesTimersInTimeOrderOnlyWhenAdvanced() {
        let clock = VirtualClock(start: 1000)
        let log = Log()
        let a = clock.schedule(every: 1) { log.times.append(clock.now) }
        let b = clock.schedule(every: 2.5) { log.times.append(-clock.now) }
        #expect(log.times.isEmpty)
        clock.advance(by: 5)
        #expect(log.times == [1001, 1002, -1002.5, 1003, 1004, 1005, -1005])
        #expect(clock.now == 1005)
        a.cancel()
        clock.advance(by: 3)
        #expect(log.times.suffix(1) == [-1007.5])
        b.cancel()
    }
}
