import Foundation
import PurchaseKit

// The JSON of a `.storekit` file, as Xcode writes it. Only the keys the
// simulator uses are declared; the decoder ignores the rest, which is what
// lets files from newer Xcode versions load. Values are checked while
// decoding so that a bad value fails with its exact key path.

struct ConfigurationFile: Decodable {
    struct Version: Decodable {
        var major: Int
        var minor: Int?
    }

    var identifier: String?
    var version: Version?
    var products: [ProductEntry]?
    var nonRenewingSubscriptions: [ProductEntry]?
    var subscriptionGroups: [GroupEntry]?
    var settings: SettingsEntry?
}

struct GroupEntry: Decodable {
    var id: String?
    var name: String?
    var subscriptions: [ProductEntry]?
}

struct LocalizationEntry: Decodable {
    var locale: String?
    var displayName: String?
    var description: String?
}

struct OfferEntry: Decodable {
    enum CodingKeys: String, CodingKey {
        case paymentMode, subscriptionPeriod, numberOfPeriods, displayPrice
    }

    var offer: IntroductoryOffer

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let modeText = try container.decode(String.self, forKey: .paymentMode)
        let mode: OfferPaymentMode
        switch modeText {
        case "free", "freeTrial": mode = .freeTrial
        case "payAsYouGo": mode = .payAsYouGo
        case "payUpFront": mode = .payUpFront
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .paymentMode, in: container,
                debugDescription: "expected free, payAsYouGo or payUpFront")
        }
        let period = try container.decode(SubscriptionPeriod.self, forKey: .subscriptionPeriod)
        guard AppStoreLimits.offerPeriods.contains(period.iso8601) else {
            throw DecodingError.dataCorruptedError(
                forKey: .subscriptionPeriod, in: container,
                debugDescription: "expected an offer duration: \(AppStoreLimits.describe(AppStoreLimits.offerPeriods))")
        }
        let count = try container.decodeIfPresent(Int.self, forKey: .numberOfPeriods) ?? 1
        guard AppStoreLimits.offerPeriodCounts.contains(count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .numberOfPeriods, in: container,
                debugDescription: "expected \(AppStoreLimits.offerPeriodCounts.lowerBound) to \(AppStoreLimits.offerPeriodCounts.upperBound) periods")
        }
        offer = IntroductoryOffer(
            paymentMode: mode, period: period, periodCount: count,
            displayPrice: try container.decodeIfPresent(String.self, forKey: .displayPrice))
    }
}

struct ProductEntry: Decodable {
    enum CodingKeys: String, CodingKey {
        case productID, type, displayPrice, familyShareable, localizations, referenceName
        case recurringSubscriptionPeriod, introductoryOffer, subscriptionGroupID, groupNumber
        case adHocOffers, codeOffers, winbackOffers
    }

    var productID: String
    var type: ProductType
    var price: Decimal
    var displayPrice: String
    var familyShareable: Bool
    var referenceName: String?
    var localizations: [LocalizationEntry]
    var period: SubscriptionPeriod?
    var introductoryOffer: IntroductoryOffer?
    var groupID: String?
    var groupNumber: Int?
    var offers: [SubscriptionOffer] = []

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productID = try container.decode(String.self, forKey: .productID)
        guard !productID.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .productID, in: container, debugDescription: "expected a non-empty product id")
        }
        let typeText = try container.decode(String.self, forKey: .type)
        switch typeText {
        case "Consumable": type = .consumable
        case "NonConsumable": type = .nonConsumable
        case "NonRenewingSubscription": type = .nonRenewable
        case "RecurringSubscription": type = .autoRenewable
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container,
                debugDescription: "expected Consumable, NonConsumable, NonRenewingSubscription or RecurringSubscription")
        }
        // Xcode writes the price as a string; a number is accepted too, read through
        // its text so that 0.99 stays exactly 0.99.
        let priceText: String
        if let text = try? container.decode(String.self, forKey: .displayPrice) {
            priceText = text
        } else if let number = try? container.decode(Double.self, forKey: .displayPrice) {
            priceText = "\(number)"
        } else {
            _ = try container.decode(String.self, forKey: .displayPrice)
            priceText = ""
        }
        guard priceText.count <= AppStoreLimits.maximumPriceLength, let price = Self.exactDecimal(priceText),
              price.isFinite, price >= 0, price <= AppStoreLimits.maximumPrice else {
            throw DecodingError.dataCorruptedError(
                forKey: .displayPrice, in: container,
                debugDescription: "expected a price such as 0.99, from 0 to \(AppStoreLimits.maximumPrice)")
        }
        self.price = price
        displayPrice = priceText
        familyShareable = try container.decodeIfPresent(Bool.self, forKey: .familyShareable) ?? false
        referenceName = try container.decodeIfPresent(String.self, forKey: .referenceName)
        localizations = try container.decodeIfPresent([LocalizationEntry].self, forKey: .localizations) ?? []
        if type == .autoRenewable {
            period = try container.decode(SubscriptionPeriod.self, forKey: .recurringSubscriptionPeriod)
        } else {
            period = try container.decodeIfPresent(SubscriptionPeriod.self, forKey: .recurringSubscriptionPeriod)
        }
        if let period, !AppStoreLimits.renewalPeriods.contains(period.iso8601) {
            throw DecodingError.dataCorruptedError(
                forKey: .recurringSubscriptionPeriod, in: container,
                debugDescription: "expected a subscription duration: \(AppStoreLimits.describe(AppStoreLimits.renewalPeriods))")
        }
        introductoryOffer = try container.decodeIfPresent(OfferEntry.self, forKey: .introductoryOffer)?.offer
        if type == .autoRenewable {
            offers = try SubscriptionOfferEntry.decodeList(container, forKey: .adHocOffers, kind: .promotional)
                + SubscriptionOfferEntry.decodeList(container, forKey: .codeOffers, kind: .offerCode)
                + SubscriptionOfferEntry.decodeList(container, forKey: .winbackOffers, kind: .winBack)
        }
        groupID = try container.decodeIfPresent(String.self, forKey: .subscriptionGroupID)
        groupNumber = try container.decodeIfPresent(Int.self, forKey: .groupNumber)
        if let groupNumber, !AppStoreLimits.groupLevels.contains(groupNumber) {
            throw DecodingError.dataCorruptedError(
                forKey: .groupNumber, in: container,
                debugDescription: "expected a rank from \(AppStoreLimits.groupLevels.lowerBound) to \(AppStoreLimits.groupLevels.upperBound)")
        }
    }

    /// The decimal written in `text`, only when all of `text` is a plain decimal number.
    static func exactDecimal(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var digits = 0
        var dots = 0
        for character in trimmed {
            if character.isASCII, character.isNumber {
                digits += 1
            } else if character == "." {
                dots += 1
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1 else { return nil }
        return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
    }

    func product(locale: String?, currencyCode: String, group: GroupEntry?) -> StoreProduct {
        let localization = Self.pick(localizations, for: locale)
        var subscription: SubscriptionInfo?
        if let period {
            subscription = SubscriptionInfo(
                groupID: groupID ?? group?.id ?? group?.name ?? productID,
                period: period, groupLevel: groupNumber, introductoryOffer: introductoryOffer,
                groupName: group?.name, offers: offers)
        }
        return StoreProduct(
            id: productID, type: type,
            displayName: localization?.displayName ?? referenceName ?? productID,
            description: localization?.description ?? "",
            price: price, displayPrice: displayPrice, currencyCode: currencyCode,
            isFamilyShareable: familyShareable, subscription: subscription)
    }

    /// The localization for `locale`: exact match, then same language, then the first.
    static func pick(_ entries: [LocalizationEntry], for locale: String?) -> LocalizationEntry? {
        func normalized(_ text: String?) -> String? { text?.replacingOccurrences(of: "-", with: "_").lowercased() }
        if let wanted = normalized(locale) {
            if let exact = entries.first(where: { normalized($0.locale) == wanted }) { return exact }
            let language = wanted.split(separator: "_").first.map(String.init) ?? wanted
            if let sameLanguage = entries.first(where: {
                normalized($0.locale)?.split(separator: "_").first.map(String.init) == language
            }) { return sameLanguage }
        }
        return entries.first
    }
}

struct SettingsEntry: Decodable {
    enum CodingKeys: String, CodingKey {
        case askToBuy = "_askToBuyEnabled"
        case failTransactions = "_failTransactionsEnabled"
        case billingIssues = "_billingIssuesEnabled"
        case renewalBillingIssues = "_renewalBillingIssuesEnabled"
        case gracePeriod = "_billingGracePeriodEnabled"
        case timeRate = "_timeRate"
        case locale = "_locale"
        case storefront = "_storefront"
        case storeKitErrors = "_storeKitErrors"
    }

    struct ErrorEntry: Decodable {
        var name: String
        var enabled: Bool?
        var current: String?

        enum CodingKeys: String, CodingKey { case name, enabled, current }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
            // `current` is null, a string, or (in some versions) an object; keep only a string.
            current = try? container.decodeIfPresent(String.self, forKey: .current)
        }
    }

    var askToBuy: Bool?
    var failTransactions: Bool?
    var billingIssues: Bool?
    var renewalBillingIssues: Bool?
    var gracePeriod: Bool?
    var timeRate: Int?
    var locale: String?
    var storefront: String?
    var storeKitErrors: [ErrorEntry]?
}

extension StoreKitConfiguration.Settings {
    init(_ entry: SettingsEntry?) {
        self.init(
            askToBuyEnabled: entry?.askToBuy ?? false,
            failTransactionsEnabled: entry?.failTransactions ?? false,
            billingIssuesEnabled: (entry?.billingIssues ?? false) || (entry?.renewalBillingIssues ?? false),
            billingGracePeriodEnabled: entry?.gracePeriod ?? false,
            timeRate: entry?.timeRate.map { StoreKitConfiguration.TimeRate(xcodeRawValue: $0) } ?? .realTime,
            locale: entry?.locale,
            storefront: entry?.storefront,
            storeKitErrors: (entry?.storeKitErrors ?? []).map {
                StoreKitConfiguration.StoreKitErrorSetting(name: $0.name, enabled: $0.enabled ?? false, current: $0.current)
            })
    }
}
