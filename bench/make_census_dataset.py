#!/usr/bin/env python3
"""Writes a census-like table with 50 quasi-identifiers and their
generalization hierarchies, for the wide-table benchmark (bench/wide-tables.py).

    bench/make_census_dataset.py OUT_DIR [--rows 40000] [--seed 20261129]

The table is shaped like a person record of a public census extract (the
American Community Survey's PUMS): age, sex, race, Hispanic origin, marital
status, education, employment, occupation, industry, hours and weeks worked,
income bands, state and public-use area, citizenship, language, the six
disability flags, health insurance, commuting, household and housing items.
Nothing is drawn from real records: every column comes from hand-set
distributions with the skew of such an extract (an age pyramid, most people
white, non-Hispanic, born in the United States, speaking English at home, few
disabled) and the usual correlations (education and employment with age,
occupation with education, industry with occupation, hours and income with
employment, education and sex, disability with age, citizenship, birthplace,
language and English ability with nativity and origin, household items with
age and income). Codes and labels are simplified; the column names follow
PUMS.

Writes OUT_DIR/census.csv (';'-separated, one column per quasi-identifier,
QUASI_IDENTIFIERS' order) and OUT_DIR/hierarchies/NAME.csv (one line per
value: the value, then its generalizations, the last one '*'), the format
deid and ARX both read, and OUT_DIR/job-N.yaml for N = 15, 20, 30 and 50:
the first N columns quasi-identifying, 5-anonymity, 5 % suppression limit,
Loss, best-first search with a time limit of 60 s. The same seed gives the
same files (Python 3's random.Random). Lattice sizes: 1.13e8 (15), 2.45e10
(20), 3.81e15 (30), 3.07e23 (50).
"""

import argparse
import bisect
import itertools
import os
import random
import sys


# --- hierarchies ------------------------------------------------------------

def bands(lo, hi, widths, fmt=str):
    """Integers lo..hi; level i groups them into bands of widths[i] (counted
    from lo), the last level '*'. Returns {value: [value, band1, ..., '*']}."""
    out = {}
    for v in range(lo, hi + 1):
        row = [fmt(v)]
        for w in widths:
            a = lo + (v - lo) // w * w
            b = min(a + w - 1, hi)
            row.append(f"{fmt(a)}-{fmt(b)}")
        row.append("*")
        out[fmt(v)] = row
    return out


def groups(spec):
    """spec: {value: [group1, group2, ...]} -> rows value, groups..., '*'."""
    return {v: [v] + list(g) + ["*"] for v, g in spec.items()}


def flat(values):
    return {v: [v, "*"] for v in values}


# --- sampling helpers ---------------------------------------------------------

class Draw:
    def __init__(self, rng):
        self.rng = rng

    def pick(self, items):
        """items: list of (value, weight)."""
        total = sum(w for _, w in items)
        u = self.rng.random() * total
        acc = 0.0
        for v, w in items:
            acc += w
            if u < acc:
                return v
        return items[-1][0]

    def chance(self, p):
        return self.rng.random() < p


# --- domains ----------------------------------------------------------------

STATES = [  # (code, division, region, population share in ‰)
    ("AL", "East South Central", "South", 15), ("AK", "Pacific", "West", 2), ("AZ", "Mountain", "West", 22),
    ("AR", "West South Central", "South", 9), ("CA", "Pacific", "West", 118), ("CO", "Mountain", "West", 17),
    ("CT", "New England", "Northeast", 11), ("DE", "South Atlantic", "South", 3), ("DC", "South Atlantic", "South", 2),
    ("FL", "South Atlantic", "South", 65), ("GA", "South Atlantic", "South", 32), ("HI", "Pacific", "West", 4),
    ("ID", "Mountain", "West", 6), ("IL", "East North Central", "Midwest", 38), ("IN", "East North Central", "Midwest", 20),
    ("IA", "West North Central", "Midwest", 10), ("KS", "West North Central", "Midwest", 9),
    ("KY", "East South Central", "South", 14), ("LA", "West South Central", "South", 14),
    ("ME", "New England", "Northeast", 4), ("MD", "South Atlantic", "South", 18), ("MA", "New England", "Northeast", 21),
    ("MI", "East North Central", "Midwest", 30), ("MN", "West North Central", "Midwest", 17),
    ("MS", "East South Central", "South", 9), ("MO", "West North Central", "Midwest", 19), ("MT", "Mountain", "West", 3),
    ("NE", "West North Central", "Midwest", 6), ("NV", "Mountain", "West", 9), ("NH", "New England", "Northeast", 4),
    ("NJ", "Middle Atlantic", "Northeast", 28), ("NM", "Mountain", "West", 6), ("NY", "Middle Atlantic", "Northeast", 60),
    ("NC", "South Atlantic", "South", 32), ("ND", "West North Central", "Midwest", 2),
    ("OH", "East North Central", "Midwest", 36), ("OK", "West South Central", "South", 12), ("OR", "Pacific", "West", 13),
    ("PA", "Middle Atlantic", "Northeast", 39), ("RI", "New England", "Northeast", 3),
    ("SC", "South Atlantic", "South", 16), ("SD", "West North Central", "Midwest", 3),
    ("TN", "East South Central", "South", 21), ("TX", "West South Central", "South", 88), ("UT", "Mountain", "West", 10),
    ("VT", "New England", "Northeast", 2), ("VA", "South Atlantic", "South", 26), ("WA", "Pacific", "West", 23),
    ("WV", "South Atlantic", "South", 5), ("WI", "East North Central", "Midwest", 18), ("WY", "Mountain", "West", 2),
]
STATE_INFO = {s: (d, r) for s, d, r, _ in STATES}


def pumas_of(share):
    """Public-use areas of a state: about one per 100,000 people (share ‰ of 330 M), at least 1."""
    return max(1, round(share * 330 / 100))


RACES = {  # value: (group, weight)
    "White alone": ("White", 610), "Black alone": ("Black", 124), "American Indian alone": ("Other", 8),
    "Alaska Native alone": ("Other", 1), "American Indian and Alaska Native": ("Other", 3), "Asian alone": ("Asian", 58),
    "Pacific Islander alone": ("Other", 2), "Some other race alone": ("Other", 84), "Two or more races": ("Other", 102),
}
HISPANIC = {"Not Hispanic": "Not Hispanic", "Mexican": "Hispanic", "Puerto Rican": "Hispanic", "Cuban": "Hispanic",
            "Central American": "Hispanic", "South American": "Hispanic", "Other Hispanic": "Hispanic"}
MARITAL = {"Married": "Ever married", "Widowed": "Ever married", "Divorced": "Ever married",
           "Separated": "Ever married", "Never married": "Never married"}
SCHOOL = [  # (value, group, coarse group)
    ("No schooling", "Below high school", "No degree"), ("Nursery to grade 4", "Below high school", "No degree"),
    ("Grade 5 to 8", "Below high school", "No degree"), ("Grade 9 to 11", "Below high school", "No degree"),
    ("Grade 12 no diploma", "Below high school", "No degree"), ("High school diploma", "High school", "No degree"),
    ("GED", "High school", "No degree"), ("Some college <1 year", "Some college", "No degree"),
    ("Some college 1+ years", "Some college", "No degree"), ("Associate's degree", "Associate's", "Degree"),
    ("Bachelor's degree", "Bachelor's", "Degree"), ("Master's degree", "Graduate", "Degree"),
    ("Professional degree", "Graduate", "Degree"), ("Doctorate", "Graduate", "Degree"),
]
SCHOOL_RANK = {v: i for i, (v, _, _) in enumerate(SCHOOL)}
OCCUPATIONS = [  # (value, group, min education rank typical, weight)
    ("Management", "Management, business, science, arts", 10, 10), ("Business and financial", "Management, business, science, arts", 10, 6),
    ("Computer and mathematical", "Management, business, science, arts", 10, 4),
    ("Architecture and engineering", "Management, business, science, arts", 10, 2),
    ("Life, physical, social science", "Management, business, science, arts", 11, 1),
    ("Community and social service", "Management, business, science, arts", 10, 2), ("Legal", "Management, business, science, arts", 12, 1),
    ("Education and library", "Management, business, science, arts", 10, 6), ("Arts, media, sports", "Management, business, science, arts", 8, 2),
    ("Healthcare practitioners", "Management, business, science, arts", 10, 6), ("Healthcare support", "Service", 5, 3),
    ("Protective service", "Service", 5, 2), ("Food preparation and serving", "Service", 0, 6),
    ("Building and grounds cleaning", "Service", 0, 4), ("Personal care and service", "Service", 5, 3),
    ("Sales", "Sales and office", 5, 10), ("Office and administrative support", "Sales and office", 5, 12),
    ("Farming, fishing, forestry", "Natural resources, construction, maintenance", 0, 1),
    ("Construction and extraction", "Natural resources, construction, maintenance", 0, 5),
    ("Installation, maintenance, repair", "Natural resources, construction, maintenance", 5, 3),
    ("Production", "Production, transportation", 0, 6), ("Transportation", "Production, transportation", 0, 4),
    ("Material moving", "Production, transportation", 0, 4), ("Military specific", "Production, transportation", 5, 1),
]
INDUSTRY_OF = {  # occupation group -> industries with weights
    "Management, business, science, arts": [("Professional, scientific, technical", 5), ("Education", 5), ("Health care", 5),
                                            ("Finance and insurance", 3), ("Public administration", 2), ("Information", 2),
                                            ("Manufacturing", 2), ("Arts and entertainment", 1)],
    "Service": [("Accommodation and food", 5), ("Health care", 3), ("Administrative and waste", 2),
                ("Public administration", 1), ("Other services", 2), ("Retail trade", 1)],
    "Sales and office": [("Retail trade", 5), ("Finance and insurance", 2), ("Wholesale trade", 1), ("Real estate", 1),
                         ("Health care", 1), ("Administrative and waste", 1), ("Transportation and warehousing", 1)],
    "Natural resources, construction, maintenance": [("Construction", 5), ("Agriculture", 1), ("Mining", 1),
                                                     ("Utilities", 1), ("Manufacturing", 1), ("Other services", 1)],
    "Production, transportation": [("Manufacturing", 5), ("Transportation and warehousing", 3), ("Wholesale trade", 1),
                                   ("Retail trade", 1), ("Military", 1)],
}
INDUSTRY_GROUP = {
    "Agriculture": "Goods", "Mining": "Goods", "Construction": "Goods", "Manufacturing": "Goods", "Utilities": "Goods",
    "Wholesale trade": "Trade and transport", "Retail trade": "Trade and transport",
    "Transportation and warehousing": "Trade and transport", "Information": "Services", "Finance and insurance": "Services",
    "Real estate": "Services", "Professional, scientific, technical": "Services", "Administrative and waste": "Services",
    "Education": "Public and social", "Health care": "Public and social", "Arts and entertainment": "Services",
    "Accommodation and food": "Services", "Other services": "Services", "Public administration": "Public and social",
    "Military": "Public and social",
}
COW = {"Private for-profit": "Private", "Private not-for-profit": "Private", "Local government": "Government",
       "State government": "Government", "Federal government": "Government", "Self-employed not incorporated": "Self-employed",
       "Self-employed incorporated": "Self-employed", "Unpaid family worker": "Other", "Unemployed, no recent work": "Other"}
ESR = {"Civilian employed, at work": "Employed", "Civilian employed, not at work": "Employed", "Armed forces": "Employed",
       "Unemployed": "Unemployed", "Not in labor force": "Not in labor force"}
INCOME_BANDS = [0, 1, 5000, 10000, 15000, 20000, 25000, 30000, 35000, 40000, 50000, 60000, 75000, 100000, 150000, 200000]
LANGUAGES = {  # language: family
    "English only": "English", "Spanish": "Romance", "French": "Romance", "Portuguese": "Romance", "Italian": "Romance",
    "German": "Germanic", "Russian": "Slavic", "Polish": "Slavic", "Chinese": "Asian", "Vietnamese": "Asian",
    "Tagalog": "Asian", "Korean": "Asian", "Arabic": "Other", "Hindi": "Asian", "Other language": "Other",
}
ENGLISH = {"Native": "Well", "Very well": "Well", "Well": "Well", "Not well": "Not well", "Not at all": "Not well"}
CITIZEN = {"Born in the US": "Citizen", "Born in US territories": "Citizen", "Born abroad of US parents": "Citizen",
           "Naturalized": "Citizen", "Not a citizen": "Not a citizen"}
BIRTH_REGIONS = {  # foreign birthplaces: region
    "Mexico": "Latin America", "Central America": "Latin America", "Caribbean": "Latin America",
    "South America": "Latin America", "China": "Asia", "India": "Asia", "Philippines": "Asia", "Vietnam": "Asia",
    "Korea": "Asia", "Other Asia": "Asia", "Europe": "Europe", "Africa": "Africa", "Canada": "Northern America",
    "Oceania": "Oceania",
}
TRANSPORT = {"Car, alone": "Private vehicle", "Carpool": "Private vehicle", "Bus": "Public transport",
             "Subway": "Public transport", "Railroad": "Public transport", "Ferry": "Public transport", "Taxi": "Other",
             "Motorcycle": "Private vehicle", "Bicycle": "Other", "Walked": "Other", "Worked from home": "Home",
             "Other method": "Other", "Not a worker": "Not a worker"}
RELATIONSHIP = {"Householder": "Householder", "Spouse": "Family", "Unmarried partner": "Nonfamily", "Child": "Family",
                "Grandchild": "Family", "Parent": "Family", "Sibling": "Family", "Other relative": "Family",
                "Roommate": "Nonfamily", "Foster child": "Nonfamily", "Other nonrelative": "Nonfamily",
                "Group quarters": "Group quarters"}
TENURE = {"Owned with mortgage": "Owner", "Owned free and clear": "Owner", "Rented": "Renter",
          "Occupied without rent": "Renter", "Group quarters": "Group quarters"}
BUILDING = {"Mobile home": "Other", "One-family detached": "Single family", "One-family attached": "Single family",
            "2 apartments": "Small multi-unit", "3-4 apartments": "Small multi-unit", "5-9 apartments": "Small multi-unit",
            "10-19 apartments": "Large multi-unit", "20-49 apartments": "Large multi-unit", "50+ apartments": "Large multi-unit",
            "Boat, RV, van": "Other", "Group quarters": "Other"}
FIELD = {"Computers and math": "STEM", "Engineering": "STEM", "Biology": "STEM", "Physical sciences": "STEM",
         "Health": "STEM", "Business": "Non-STEM", "Education": "Non-STEM", "Social sciences": "Non-STEM",
         "Psychology": "Non-STEM", "Humanities": "Non-STEM", "Arts": "Non-STEM", "Communications": "Non-STEM",
         "Other field": "Non-STEM", "No bachelor's degree": "None"}
ANCESTRY = {"German": "European", "Irish": "European", "English": "European", "Italian": "European", "Polish": "European",
            "French": "European", "Scottish": "European", "Norwegian": "European", "Mexican": "Hispanic",
            "Puerto Rican": "Hispanic", "Other Hispanic": "Hispanic", "African American": "African",
            "Sub-Saharan African": "African", "Chinese": "Asian", "Indian": "Asian", "Filipino": "Asian",
            "Other Asian": "Asian", "Arab": "Other", "American": "American", "Not reported": "Not reported"}
MIGRATION = {"Same house": "Did not move", "Same county": "Moved within state", "Other county, same state": "Moved within state",
             "Other state": "Moved between states", "Abroad": "Moved from abroad"}
VETERAN = {"Never served": "Never served", "Gulf War 2001+": "Veteran", "Gulf War 1990s": "Veteran",
           "Vietnam era": "Veteran", "Korean War or earlier": "Veteran", "Peacetime": "Veteran",
           "Active duty now": "Serving"}
SCHOOL_ENROLLED = {"Not enrolled": "Not enrolled", "Public school": "Enrolled", "Private school": "Enrolled",
                   "Home school": "Enrolled"}
WHEN_WORKED = {"Last 12 months": "Recently", "1-5 years ago": "Earlier", "Over 5 years or never": "Earlier"}
ACCESS = {"Subscription": "Access", "Access without subscription": "Access", "No access": "No access"}
CHILDREN = {"Children under 6 only": "Children", "Children 6-17 only": "Children", "Both": "Children",
            "No children": "No children", "Not in a household": "No children"}
YESNO = {"Yes": "Yes", "No": "No"}

# --- the quasi-identifiers, in the order the benchmark adds them ---------------
# (name, hierarchy rows as {value: [value, ..., '*']})

def hierarchy_rows():
    h = {}
    h["AGEP"] = bands(0, 99, [5, 10, 20, 40])
    h["SEX"] = flat(["Male", "Female"])
    h["ST_PUMA"] = {}
    for s, d, r, share in STATES:
        for p in range(1, pumas_of(share) + 1):
            v = f"{s}-{p:03d}"
            h["ST_PUMA"][v] = [v, s, d, r, "*"]
    h["SCHL"] = {v: [v, g, c, "*"] for v, g, c in SCHOOL}
    h["MAR"] = groups({k: [v] for k, v in MARITAL.items()})
    h["RAC1P"] = groups({k: [v[0]] for k, v in RACES.items()})
    h["HISP"] = groups({k: [v] for k, v in HISPANIC.items()})
    h["OCCP"] = {v: [v, g, "*"] for v, g, _, _ in OCCUPATIONS}
    h["OCCP"]["Not in labor force"] = ["Not in labor force", "Not in labor force", "*"]
    h["WKHP"] = bands(0, 99, [5, 10, 20, 40])
    h["PINCP"] = income_rows()
    h["CIT"] = groups({k: [v] for k, v in CITIZEN.items()})
    h["COW"] = groups({k: [v] for k, v in COW.items()})
    h["COW"]["Not in labor force"] = ["Not in labor force", "Other", "*"]
    h["ESR"] = groups({k: [v] for k, v in ESR.items()})
    h["ESR"]["Under 16"] = ["Under 16", "Not in labor force", "*"]
    h["INDP"] = groups({k: [v] for k, v in INDUSTRY_GROUP.items()})
    h["INDP"]["Not in labor force"] = ["Not in labor force", "Not in labor force", "*"]
    h["LANP"] = groups({k: [v] for k, v in LANGUAGES.items()})
    h["DIS"] = flat(["With a disability", "Without a disability"])
    h["POBP"] = {}
    for s, d, r, _ in STATES:
        h["POBP"][s] = [s, r, "United States", "*"]
    h["POBP"]["US territory"] = ["US territory", "US territory", "United States", "*"]
    for c, reg in BIRTH_REGIONS.items():
        h["POBP"][c] = [c, reg, "Abroad", "*"]
    h["ENG"] = groups({k: [v] for k, v in ENGLISH.items()})
    h["RELP"] = groups({k: [v] for k, v in RELATIONSHIP.items()})
    h["TEN"] = groups({k: [v] for k, v in TENURE.items()})
    h["HINCP"] = income_rows()
    h["NP"] = bands(1, 12, [2, 4])
    h["MIL"] = groups({k: [v] for k, v in VETERAN.items()})
    h["JWTR"] = groups({k: [v] for k, v in TRANSPORT.items()})
    h["JWMNP"] = bands(0, 119, [5, 15, 30, 60])
    h["WKWN"] = bands(0, 52, [4, 12, 24])
    h["FOD1P"] = groups({k: [v] for k, v in FIELD.items()})
    h["YOEP"] = {"Born in the US": ["Born in the US", "Born in the US", "*"]}
    for y in range(1940, 2026):
        h["YOEP"][str(y)] = [str(y), f"{y // 10 * 10}s", "*"]
    h["DEAR"] = flat(["Yes", "No"])
    h["DEYE"] = flat(["Yes", "No"])
    h["DREM"] = flat(["Yes", "No"])
    h["DPHY"] = flat(["Yes", "No"])
    h["DDRS"] = flat(["Yes", "No"])
    h["DOUT"] = flat(["Yes", "No"])
    h["HICOV"] = flat(["Insured", "Uninsured"])
    h["PRIVCOV"] = flat(["Yes", "No"])
    h["PUBCOV"] = flat(["Yes", "No"])
    h["BLD"] = groups({k: [v] for k, v in BUILDING.items()})
    h["VEH"] = bands(0, 6, [2])
    h["RMSP"] = bands(1, 15, [3, 6])
    h["YBL"] = {}
    for y in range(1930, 2025, 5):
        h["YBL"][f"{y}-{y + 4}"] = [f"{y}-{y + 4}", f"{y // 20 * 20}-{y // 20 * 20 + 19}", "*"]
    h["ANC1P"] = groups({k: [v] for k, v in ANCESTRY.items()})
    h["MIGSP"] = groups({k: [v] for k, v in MIGRATION.items()})
    h["SCH"] = groups({k: [v] for k, v in SCHOOL_ENROLLED.items()})
    h["WKL"] = groups({k: [v] for k, v in WHEN_WORKED.items()})
    h["ACCESS"] = groups({k: [v] for k, v in ACCESS.items()})
    h["HUPAC"] = groups({k: [v] for k, v in CHILDREN.items()})
    h["SSP"] = flat(["Yes", "No"])
    h["RETP"] = flat(["Yes", "No"])
    h["PAP"] = flat(["Yes", "No"])
    return h


def income_label(x):
    i = bisect.bisect_right(INCOME_BANDS, x) - 1
    if i == 0:
        return "None"
    if i == len(INCOME_BANDS) - 1:
        return f"{INCOME_BANDS[i]}+"
    return f"{INCOME_BANDS[i]}-{INCOME_BANDS[i + 1] - 1}"


def income_rows():
    labels = [income_label(b) for b in INCOME_BANDS]
    rows = {}
    for i, v in enumerate(labels):
        half = "Below 40000" if INCOME_BANDS[i] < 40000 else "40000 and more"
        quarter = ("Below 15000" if INCOME_BANDS[i] < 15000 else "15000-39999" if INCOME_BANDS[i] < 40000
                   else "40000-99999" if INCOME_BANDS[i] < 100000 else "100000+")
        rows[v] = [v, quarter, half, "*"]
    return rows


QUASI_IDENTIFIERS = [
    "AGEP", "SEX", "ST_PUMA", "SCHL", "MAR", "RAC1P", "HISP", "OCCP", "WKHP", "PINCP", "CIT", "COW", "ESR",
    "INDP", "LANP",  # 15
    "DIS", "POBP", "ENG", "RELP", "TEN",  # 20
    "HINCP", "NP", "MIL", "JWTR", "JWMNP", "WKWN", "FOD1P", "YOEP", "DEAR", "DPHY",  # 30
    "DREM", "DEYE", "DDRS", "DOUT", "HICOV", "PRIVCOV", "PUBCOV", "BLD", "VEH", "RMSP",  # 40
    "YBL", "ANC1P", "MIGSP", "SCH", "WKL", "ACCESS", "HUPAC", "SSP", "RETP", "PAP",  # 50
]


JOB_SIZES = (15, 20, 30, 50)


# --- one person ----------------------------------------------------------------

def person(d):
    r = d.rng
    p = {}
    # Age: a pyramid, fewer people above 65, up to 99.
    p_age = d.pick([(0, 6), (5, 6), (10, 6.5), (15, 6.5), (20, 6.7), (25, 7), (30, 6.8), (35, 6.5), (40, 6.2),
                    (45, 6.2), (50, 6.3), (55, 6.5), (60, 6.1), (65, 5.2), (70, 4.1), (75, 2.8), (80, 1.9), (85, 1.2),
                    (90, 0.5), (95, 0.1)])
    age = p_age + r.randrange(5)
    p["AGEP"] = str(age)
    sex = "Female" if d.chance(0.508 + (0.1 if age >= 80 else 0)) else "Male"
    p["SEX"] = sex
    state = d.pick([(s, w) for s, _, _, w in STATES])
    n = pumas_of(dict((s, w) for s, _, _, w in STATES)[state])
    # Public-use areas of a state: a few dense ones hold more people.
    puma = min(n, 1 + int(n * r.random() ** 1.4))
    p["ST_PUMA"] = f"{state}-{puma:03d}"
    region = STATE_INFO[state][1]
    # Origin: Hispanic more likely in the West and South, some states much more.
    hisp_p = {"West": 0.29, "South": 0.2, "Northeast": 0.15, "Midwest": 0.08}[region]
    if state in ("NM", "TX", "CA"):
        hisp_p = 0.4
    hispanic = d.chance(hisp_p)
    p["HISP"] = d.pick([("Mexican", 62), ("Puerto Rican", 10), ("Cuban", 4), ("Central American", 10),
                        ("South American", 7), ("Other Hispanic", 7)]) if hispanic else "Not Hispanic"
    if hispanic:
        race = d.pick([("White alone", 45), ("Some other race alone", 35), ("Two or more races", 17),
                       ("Black alone", 2), ("American Indian alone", 1)])
    else:
        race = d.pick([(k, v[1]) for k, v in RACES.items() if k != "Some other race alone"])
    p["RAC1P"] = race
    # Nativity: foreign-born among adults, more among Hispanic and Asian people.
    foreign_p = 0.04 if age < 18 else 0.14
    if hispanic:
        foreign_p *= 2.6
    if race == "Asian alone":
        foreign_p = 0.1 if age < 18 else 0.65
    foreign = d.chance(min(foreign_p, 0.8))
    if foreign:
        if hispanic:
            pob = d.pick([("Mexico", 60), ("Central America", 18), ("Caribbean", 10), ("South America", 12)])
        elif race == "Asian alone":
            pob = d.pick([("China", 22), ("India", 24), ("Philippines", 17), ("Vietnam", 11), ("Korea", 9), ("Other Asia", 17)])
        elif race == "Black alone":
            pob = d.pick([("Africa", 50), ("Caribbean", 45), ("Europe", 5)])
        else:
            pob = d.pick([("Europe", 55), ("Canada", 15), ("Oceania", 3), ("Africa", 7), ("Other Asia", 10),
                          ("South America", 10)])
        year = max(1940, min(2025, 2025 - int(r.random() ** 1.5 * min(age, 80))))
        p["YOEP"] = str(year)
        naturalized_p = min(0.85, (2025 - year) / 35)
        p["CIT"] = "Naturalized" if d.chance(naturalized_p) else "Not a citizen"
    else:
        pob = state if d.chance(0.68) else d.pick([(s, w) for s, _, _, w in STATES])
        if hispanic and p["HISP"] == "Puerto Rican" and d.chance(0.3):
            pob = "US territory"
        p["YOEP"] = "Born in the US"
        p["CIT"] = ("Born in US territories" if pob == "US territory"
                    else "Born abroad of US parents" if d.chance(0.01) else "Born in the US")
    p["POBP"] = pob
    # Language at home and English ability.
    if foreign or (hispanic and d.chance(0.55)) or d.chance(0.05):
        if hispanic:
            lang = "Spanish"
        elif pob in ("China",):
            lang = "Chinese"
        elif pob == "Vietnam":
            lang = "Vietnamese"
        elif pob == "Philippines":
            lang = "Tagalog"
        elif pob == "Korea":
            lang = "Korean"
        elif pob == "India":
            lang = d.pick([("Hindi", 5), ("Other language", 4), ("English only", 1)])
        elif pob == "Europe":
            lang = d.pick([("German", 3), ("Italian", 2), ("Polish", 2), ("Russian", 3), ("French", 2),
                           ("Portuguese", 1), ("English only", 4)])
        elif pob == "Africa":
            lang = d.pick([("French", 3), ("Arabic", 3), ("Other language", 4), ("English only", 3)])
        else:
            lang = d.pick([("English only", 6), ("Other language", 2), ("French", 1), ("Arabic", 1)])
    else:
        lang = "English only"
    if age < 5:
        lang = "English only" if not foreign else lang
    p["LANP"] = lang
    if lang == "English only":
        p["ENG"] = "Native"
    else:
        p["ENG"] = d.pick([("Very well", 55 if not foreign else 35), ("Well", 20), ("Not well", 17 if foreign else 6),
                           ("Not at all", 8 if foreign else 1)])
    # Education by age.
    if age < 5:
        schl = "No schooling"
    elif age < 10:
        schl = "Nursery to grade 4"
    elif age < 14:
        schl = "Grade 5 to 8"
    elif age < 18:
        schl = "Grade 9 to 11"
    else:
        young = age < 23
        w = [("No schooling", 1), ("Nursery to grade 4", 0.5), ("Grade 5 to 8", 2.5 if age > 60 else 1),
             ("Grade 9 to 11", 4), ("Grade 12 no diploma", 1.5), ("High school diploma", 23), ("GED", 3.5),
             ("Some college <1 year", 6 if not young else 20), ("Some college 1+ years", 13 if not young else 25),
             ("Associate's degree", 9 if not young else 3), ("Bachelor's degree", 21 if not young else 8),
             ("Master's degree", 10 if age > 25 else 0.5), ("Professional degree", 2 if age > 26 else 0),
             ("Doctorate", 1.6 if age > 28 else 0)]
        if foreign and hispanic:
            w[2] = ("Grade 5 to 8", 12)
        schl = d.pick(w)
    p["SCHL"] = schl
    edu = SCHOOL_RANK[schl]
    # School enrollment.
    if 5 <= age < 18:
        p["SCH"] = d.pick([("Public school", 88), ("Private school", 9), ("Home school", 3)])
    elif age < 3:
        p["SCH"] = "Not enrolled"
    elif age < 5:
        p["SCH"] = d.pick([("Not enrolled", 55), ("Public school", 25), ("Private school", 20)])
    elif age < 25:
        p["SCH"] = d.pick([("Not enrolled", 55), ("Public school", 33), ("Private school", 12)])
    else:
        p["SCH"] = "Not enrolled" if not d.chance(0.06) else d.pick([("Public school", 3), ("Private school", 2)])
    # Marital status by age.
    if age < 15:
        mar = "Never married"
    else:
        pm = min(0.65, max(0.0, (age - 18) / 25 * 0.6))
        widowed = min(0.45, max(0.0, (age - 60) / 40 * (0.55 if sex == "Female" else 0.2)))
        divorced = 0.1 if 30 <= age < 75 else 0.04
        mar = d.pick([("Married", pm), ("Widowed", widowed), ("Divorced", divorced), ("Separated", 0.02 if age > 20 else 0),
                      ("Never married", max(0.05, 1 - pm - widowed - divorced))])
    p["MAR"] = mar
    # Employment.
    if age < 16:
        esr = "Under 16"
    else:
        lf = 0.1 if age >= 75 else 0.3 if age >= 65 else 0.6 if age < 20 or age >= 60 else 0.82
        lf *= 1 + (edu - 7) * 0.025
        if sex == "Female":
            lf *= 0.9
        if d.chance(min(lf, 0.97)):
            esr = d.pick([("Civilian employed, at work", 91), ("Civilian employed, not at work", 3), ("Unemployed", 5),
                          ("Armed forces", 0.5 if 18 <= age < 50 else 0)])
        else:
            esr = "Not in labor force"
    p["ESR"] = esr
    employed = esr in ("Civilian employed, at work", "Civilian employed, not at work", "Armed forces")
    working_age = esr != "Under 16"
    # Disability grows with age.
    dis_p = 0.04 if age < 18 else 0.08 if age < 35 else 0.12 if age < 65 else 0.25 if age < 75 else 0.48
    disabled = d.chance(dis_p * (0.7 if employed else 1.2))
    p["DIS"] = "With a disability" if disabled else "Without a disability"
    flags = {"DEAR": 0.25 + age / 400, "DEYE": 0.18, "DREM": 0.35, "DPHY": 0.3 + age / 250, "DDRS": 0.15 + age / 500,
             "DOUT": 0.2 + age / 300}
    for f, q in flags.items():
        if f in ("DOUT", "DREM", "DPHY", "DDRS") and age < 5:
            p[f] = "No"
        else:
            p[f] = "Yes" if disabled and d.chance(min(q, 0.9)) else "No"
    if disabled and all(p[f] == "No" for f in flags):
        p[d.pick([("DPHY", 4), ("DREM", 3), ("DEAR", 2), ("DEYE", 1)])] = "Yes"
    # Occupation, industry, class of worker.
    if employed or (esr == "Unemployed" and d.chance(0.8)):
        if esr == "Armed forces":
            occ = "Military specific"
        else:
            occ = d.pick([(o, w * (2.5 if edu >= m else 0.25)) for o, g, m, w in OCCUPATIONS if o != "Military specific"])
        group = next(g for o, g, _, _ in OCCUPATIONS if o == occ)
        ind = "Military" if esr == "Armed forces" else d.pick(INDUSTRY_OF[group])
        if esr == "Armed forces":
            cow = "Federal government"
        elif ind == "Public administration":
            cow = d.pick([("Local government", 5), ("State government", 3), ("Federal government", 3)])
        elif ind == "Education":
            cow = d.pick([("Local government", 6), ("State government", 2), ("Private not-for-profit", 2), ("Private for-profit", 1)])
        else:
            cow = d.pick([("Private for-profit", 75), ("Private not-for-profit", 7 if ind == "Health care" else 2),
                          ("Self-employed not incorporated", 6 + age / 10), ("Self-employed incorporated", 3 + age / 20),
                          ("Unpaid family worker", 0.3)])
    elif esr == "Unemployed":
        occ, ind, cow = "Not in labor force", "Not in labor force", "Unemployed, no recent work"
    else:
        occ, ind, cow = "Not in labor force", "Not in labor force", "Not in labor force"
    p["OCCP"], p["INDP"], p["COW"] = occ, ind, cow
    # Hours and weeks worked, when last worked.
    if employed:
        hours = d.pick([(40, 50), (r.randrange(1, 30), 14 if sex == "Female" else 7), (r.randrange(30, 40), 9),
                        (r.randrange(41, 50), 10), (r.randrange(50, 61), 9), (r.randrange(61, 100), 2)])
        weeks = 52 if d.chance(0.78) else r.randrange(1, 52)
        p["WKL"] = "Last 12 months"
    elif esr == "Unemployed" or (working_age and d.chance(0.15)):
        hours = r.randrange(0, 45) if d.chance(0.5) else 0
        weeks = r.randrange(0, 40) if hours else 0
        p["WKL"] = "Last 12 months" if weeks else "1-5 years ago"
    else:
        hours, weeks = 0, 0
        p["WKL"] = "Over 5 years or never" if not working_age or d.chance(0.6) else "1-5 years ago"
    p["WKHP"], p["WKWN"] = str(hours), str(weeks)
    # Personal income: wages by education, hours, age and sex, plus other income.
    if age < 15:
        income = 0
    else:
        wage = 0.0
        if hours and weeks:
            rate = 12 * (1.09 ** (edu - 5)) * (1 + min(age - 18, 30) / 40) * (0.83 if sex == "Female" else 1)
            rate *= r.lognormvariate(0, 0.45)
            wage = rate * hours * weeks
        other = r.lognormvariate(9.3, 0.6) if age >= 62 and d.chance(0.85) else (r.lognormvariate(8, 1) if d.chance(0.2) else 0)
        income = int(wage + other)
    p["PINCP"] = income_label(income)
    # Retirement, social security, public assistance.
    p["SSP"] = "Yes" if age >= 62 and d.chance(0.88) or (disabled and d.chance(0.25)) else "No"
    p["RETP"] = "Yes" if age >= 55 and d.chance(0.22 + (edu - 5) * 0.03 + (age - 55) / 100) else "No"
    p["PAP"] = "Yes" if income < 15000 and age >= 18 and d.chance(0.07) else "No"
    # Military service.
    if age < 17:
        p["MIL"] = "Never served"
    elif esr == "Armed forces":
        p["MIL"] = "Active duty now"
    elif d.chance((0.11 if sex == "Male" else 0.015) * (1.8 if age >= 65 else 1)):
        p["MIL"] = ("Korean War or earlier" if age >= 88 else "Vietnam era" if age >= 68 else
                    "Gulf War 1990s" if age >= 48 else "Gulf War 2001+" if age >= 22 else "Peacetime")
    else:
        p["MIL"] = "Never served"
    # Health insurance.
    public = age >= 65 or disabled or (income < 20000 and d.chance(0.45)) or (age < 19 and income < 30000 and d.chance(0.4))
    private = (employed and d.chance(0.78)) or (age >= 65 and d.chance(0.5)) or (not employed and d.chance(0.35))
    p["PUBCOV"], p["PRIVCOV"] = ("Yes" if public else "No"), ("Yes" if private else "No")
    insured = public or private or d.chance(0.2)
    if foreign and p["CIT"] == "Not a citizen" and d.chance(0.3):
        insured = public or private
    p["HICOV"] = "Insured" if insured else "Uninsured"
    # Commute.
    if employed and esr != "Civilian employed, not at work":
        dense = state in ("NY", "NJ", "DC", "MA", "IL")
        jwtr = d.pick([("Car, alone", 68 if not dense else 45), ("Carpool", 8), ("Bus", 2 if not dense else 6),
                       ("Subway", 0.3 if not dense else 12), ("Railroad", 0.2 if not dense else 3), ("Ferry", 0.05),
                       ("Taxi", 0.2), ("Motorcycle", 0.2), ("Bicycle", 0.5), ("Walked", 2.5),
                       ("Worked from home", 15), ("Other method", 1)])
        minutes = 0 if jwtr == "Worked from home" else min(119, int(r.lognormvariate(3.0, 0.6)) + (10 if dense else 0))
    else:
        jwtr, minutes = "Not a worker", 0
    p["JWTR"], p["JWMNP"] = jwtr, str(minutes)
    # Field of degree.
    if edu >= SCHOOL_RANK["Bachelor's degree"]:
        p["FOD1P"] = d.pick([(f, w) for f, w in [("Computers and math", 6 if sex == "Male" else 2), ("Engineering", 7 if sex == "Male" else 1.5),
                                                 ("Biology", 4), ("Physical sciences", 2), ("Health", 3 if sex == "Male" else 9),
                                                 ("Business", 18), ("Education", 5 if sex == "Male" else 12),
                                                 ("Social sciences", 8), ("Psychology", 4), ("Humanities", 7), ("Arts", 5),
                                                 ("Communications", 4), ("Other field", 6)]])
    else:
        p["FOD1P"] = "No bachelor's degree"
    # Household: relationship, size, tenure, housing.
    if age >= 18 and d.chance(0.025 if age < 25 or age >= 80 else 0.008):
        rel = "Group quarters"
    elif age < 18:
        rel = d.pick([("Child", 86), ("Grandchild", 8), ("Other relative", 3), ("Foster child", 0.5), ("Other nonrelative", 1)])
    elif age < 25:
        rel = d.pick([("Child", 45), ("Householder", 18), ("Spouse", 5), ("Unmarried partner", 8), ("Roommate", 10),
                      ("Other relative", 6), ("Sibling", 3), ("Other nonrelative", 5)])
    elif mar == "Married":
        rel = d.pick([("Householder", 50), ("Spouse", 48), ("Parent", 1), ("Other relative", 1)])
    else:
        rel = d.pick([("Householder", 70 if age > 35 else 50), ("Unmarried partner", 8), ("Child", 5 if age < 40 else 2),
                      ("Parent", 4 if age > 65 else 0.5), ("Sibling", 2), ("Roommate", 4), ("Other relative", 2),
                      ("Other nonrelative", 2)])
    p["RELP"] = rel
    if rel == "Group quarters":
        np_, ten, bld = 1, "Group quarters", "Group quarters"
    else:
        np_ = 1 if rel == "Householder" and mar != "Married" and d.chance(0.45) else min(12, 2 + int(r.expovariate(0.75)))
        if rel in ("Child", "Grandchild", "Foster child"):
            np_ = max(np_, 3)
        own_p = 0.25 if age < 30 else 0.55 if age < 45 else 0.72
        own_p *= 1.15 if income > 60000 else 0.85
        if d.chance(min(own_p, 0.95)):
            ten = "Owned free and clear" if d.chance(0.1 + max(0, age - 50) / 60) else "Owned with mortgage"
            bld = d.pick([("One-family detached", 82), ("One-family attached", 6), ("Mobile home", 6),
                          ("2 apartments", 1), ("3-4 apartments", 1), ("5-9 apartments", 1), ("10-19 apartments", 1),
                          ("20-49 apartments", 1), ("50+ apartments", 1), ("Boat, RV, van", 0.1)])
        else:
            ten = "Rented" if d.chance(0.97) else "Occupied without rent"
            bld = d.pick([("One-family detached", 28), ("One-family attached", 7), ("Mobile home", 5),
                          ("2 apartments", 7), ("3-4 apartments", 9), ("5-9 apartments", 11), ("10-19 apartments", 11),
                          ("20-49 apartments", 9), ("50+ apartments", 12), ("Boat, RV, van", 0.3)])
    p["NP"], p["TEN"], p["BLD"] = str(np_), ten, bld
    # Household income: the person's and others'.
    hinc = income + (0 if np_ == 1 else int(r.lognormvariate(10.4, 0.9) * (np_ > 1)))
    p["HINCP"] = income_label(hinc)
    p["VEH"] = "0" if ten == "Group quarters" else str(min(6, max(0, int(r.gauss(1 + min(np_, 4) * 0.45 + hinc / 120000, 0.8)))))
    if ten == "Group quarters":
        p["RMSP"] = "1"
    else:
        base = 6.2 if ten.startswith("Owned") else 4.0
        p["RMSP"] = str(max(1, min(15, int(r.gauss(base + hinc / 80000, 1.5)))))
    built = max(1930, min(2020, int(r.gauss(1978, 22))))
    p["YBL"] = f"{built // 5 * 5}-{built // 5 * 5 + 4}"
    p["ANC1P"] = ("Mexican" if p["HISP"] == "Mexican" else "Puerto Rican" if p["HISP"] == "Puerto Rican" else
                  "Other Hispanic" if hispanic else
                  d.pick([("African American", 70), ("Sub-Saharan African", 10), ("Not reported", 20)]) if race == "Black alone" else
                  d.pick([("Chinese", 25), ("Indian", 25), ("Filipino", 20), ("Other Asian", 30)]) if race == "Asian alone" else
                  d.pick([("German", 14), ("Irish", 10), ("English", 8), ("Italian", 6), ("Polish", 3), ("French", 2),
                          ("Scottish", 2), ("Norwegian", 1.5), ("American", 7), ("Arab", 0.6), ("Not reported", 20)]))
    moved = 0.3 if 18 <= age < 35 else 0.12 if age < 65 else 0.05
    p["MIGSP"] = ("Abroad" if foreign and p["YOEP"] == "2025" else
                  d.pick([("Same county", 55), ("Other county, same state", 25), ("Other state", 20)]) if d.chance(moved)
                  else "Same house")
    p["ACCESS"] = ("No access" if d.chance(0.03 + (0.12 if age >= 75 else 0) + (0.08 if hinc < 20000 else 0))
                   else "Access without subscription" if d.chance(0.03) else "Subscription")
    if rel == "Group quarters":
        p["HUPAC"] = "Not in a household"
    elif age < 18 or (18 <= age < 50 and mar == "Married" and d.chance(0.55)):
        p["HUPAC"] = d.pick([("Children under 6 only", 2), ("Children 6-17 only", 5), ("Both", 2)])
    else:
        p["HUPAC"] = "No children"
    if sex == "Female" and 15 <= age <= 50:
        p["FER"] = "Yes" if d.chance(0.055 if age < 40 else 0.01) else "No"
    else:
        p["FER"] = "Not asked"
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--rows", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=20261129)
    args = ap.parse_args()

    hierarchies = hierarchy_rows()
    assert len(QUASI_IDENTIFIERS) == 50 and set(QUASI_IDENTIFIERS) == set(hierarchies), \
        set(QUASI_IDENTIFIERS) ^ set(hierarchies)
    d = Draw(random.Random(args.seed))
    rows = [person(d) for _ in range(args.rows)]
    for name in QUASI_IDENTIFIERS:
        h = hierarchies[name]
        height = {len(v) for v in h.values()}
        assert len(height) == 1, (name, height)
        missing = {row[name] for row in rows} - set(h)
        assert not missing, (name, sorted(missing)[:5])
        # A hierarchy: each value of a level generalizes to one value of the next.
        for level in range(1, height.pop() - 1):
            up = {}
            for chain in h.values():
                assert up.setdefault(chain[level], chain[level + 1]) == chain[level + 1], (name, level, chain)

    # Labels are written with " /" for ", ": a reader that detects the delimiter (deid's, from the first
    # line) must find ';' the most frequent.
    def label(v):
        return v.replace(", ", " / ")

    os.makedirs(os.path.join(args.out_dir, "hierarchies"), exist_ok=True)
    with open(os.path.join(args.out_dir, "census.csv"), "w", encoding="utf-8") as f:
        f.write(";".join(QUASI_IDENTIFIERS) + "\n")
        for row in rows:
            f.write(";".join(label(row[n]) for n in QUASI_IDENTIFIERS) + "\n")
    for name in QUASI_IDENTIFIERS:
        with open(os.path.join(args.out_dir, "hierarchies", name + ".csv"), "w", encoding="utf-8") as f:
            for value in sorted(hierarchies[name]):
                f.write(";".join(label(v) for v in hierarchies[name][value]) + "\n")
    for size in JOB_SIZES:
        lines = [f"# Census-like table, {size} quasi-identifiers (bench/make_census_dataset.py, seed {args.seed}, "
                 f"{args.rows} rows).", "input:", "  path: census.csv", '  delimiter: ";"', "attributes:"]
        lines += [f"  {n}: {{role: quasi-identifying, hierarchy: hierarchies/{n}.csv}}" for n in QUASI_IDENTIFIERS[:size]]
        lines += ["default-role: insensitive", "privacy:", "  - k-anonymity: {k: 5}", "suppression-limit: 0.05",
                  "quality:", "  model: loss", "search:", "  algorithm: best-first", "  time-limit: 60s"]
        with open(os.path.join(args.out_dir, f"job-{size}.yaml"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    heights = [len(next(iter(hierarchies[n].values()))) for n in QUASI_IDENTIFIERS]
    sizes = {n: 1 for n in JOB_SIZES}
    for n in sizes:
        for h in heights[:n]:
            sizes[n] *= h
    print(f"wrote {args.rows} rows and {len(QUASI_IDENTIFIERS)} hierarchies to {args.out_dir}; lattice sizes "
          + ", ".join(f"{n} QIs {s:.3g}" for n, s in sizes.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
