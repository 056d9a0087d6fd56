"""The world's schema: entity types, relations, numeric attributes and how each is worded.

Wording is data so that it can be read (and extended) in one place: every relation and attribute
has at least three page paraphrases, a noun phrase for composing multi-hop questions, and
question templates. ``{s}`` is the subject, ``{o}`` the object or value, ``{y}`` a year.
"""

from __future__ import annotations

from dataclasses import dataclass

ENTITY_TYPES = ("country", "city", "university", "person", "company", "product", "film", "book", "award")

OCCUPATIONS = ("film director", "author", "entrepreneur", "engineer", "architect", "economist", "painter")


@dataclass(frozen=True)
class Relation:
    """A relation from a subject type to an object type (functional: one object per subject)."""

    name: str
    subject_type: str
    object_type: str
    sentences: tuple[str, ...]  # forward paraphrases, on the subject's page
    reverse_sentences: tuple[str, ...]  # on the object's page
    noun_phrase: str  # the object described through the subject: "the founder of {x}"
    questions: tuple[str, ...]  # lookup questions about {s}
    list_question: str | None = None  # "Which films did {o} direct?" (all subjects of an object)


@dataclass(frozen=True)
class Attribute:
    """A numeric attribute; ``dated`` ones change over time and get outdated distractor pages."""

    name: str
    entity_type: str
    low: int
    high: int
    sentences: tuple[str, ...]
    dated_sentences: tuple[str, ...]  # "In {y}, ..." for outdated figures
    questions: tuple[str, ...]
    noun: str  # "population" for composed questions: "What is the {noun} of {x}?"
    comparison: str = ""  # "Which {type} has the larger population"; "earlier" for years
    unit: str = ""
    dated: bool = False
    is_year: bool = False
    quantity: bool = False  # a measured amount (revenue, population, price), not a count

    @property
    def kind(self) -> str:
        """How an answer about this attribute is scored: "year", "count" or "quantity"."""
        return "year" if self.is_year else "quantity" if self.quantity else "count"


RELATIONS: tuple[Relation, ...] = (
    Relation("located_in", "city", "country",
             ("{s} is a city in {o}.", "{s} lies in {o}.", "The city of {s} is located in {o}."),
             ("{o} includes the city of {s}.",),
             "the country in which {x} lies",
             ("In which country is {s}?", "Which country is {s} located in?")),
    Relation("capital", "country", "city",
             ("The capital of {s} is {o}.", "{o} is the capital city of {s}.", "{s} is governed from its capital, {o}."),
             ("{o} is the capital of {s}.",),
             "the capital of {x}",
             ("What is the capital of {s}?", "Which city is the capital of {s}?")),
    Relation("campus_city", "university", "city",
             ("{s} is based in {o}.", "The campus of {s} is in {o}.", "{s} has its main campus in {o}."),
             ("{o} is home to {s}.",),
             "the city where {x} is based",
             ("In which city is {s} based?", "Where is the campus of {s}?"),
             "Which universities are based in {o}?"),
    Relation("headquartered_in", "company", "city",
             ("{s} is headquartered in {o}.", "The headquarters of {s} are in {o}.", "{s} has its head office in {o}."),
             ("{o} hosts the headquarters of {s}.",),
             "the city where {x} is headquartered",
             ("Where is {s} headquartered?", "In which city are the headquarters of {s}?"),
             "Which companies are headquartered in {o}?"),
    Relation("founded_by", "company", "person",
             ("{s} was founded by {o}.", "{o} founded {s}.", "The founder of {s} is {o}."),
             ("{o} is the founder of {s}.",),
             "the founder of {x}",
             ("Who founded {s}?", "Who is the founder of {s}?"),
             "Which companies did {o} found?"),
    Relation("ceo", "company", "person",
             ("The chief executive of {s} is {o}.", "{o} runs {s} as its CEO.", "{s} is led by its CEO, {o}."),
             ("{o} is the CEO of {s}.",),
             "the chief executive of {x}",
             ("Who is the CEO of {s}?", "Who runs {s} as chief executive?")),
    Relation("made_by", "product", "company",
             ("{s} is made by {o}.", "{o} manufactures {s}.", "{s} is a product of {o}."),
             ("{o} makes {s}.",),
             "the company that makes {x}",
             ("Which company makes {s}?", "Who manufactures {s}?"),
             "Which products does {o} make?"),
    Relation("directed_by", "film", "person",
             ("{s} was directed by {o}.", "{o} directed {s}.", "{s} is a film by director {o}."),
             ("{o} directed {s}.",),
             "the director of {x}",
             ("Who directed {s}?", "Who is the director of {s}?"),
             "Which films did {o} direct?"),
    Relation("produced_by", "film", "company",
             ("{s} was produced by {o}.", "{o} produced {s}.", "The studio behind {s} is {o}."),
             ("{o} produced {s}.",),
             "the studio that produced {x}",
             ("Which studio produced {s}?", "Who produced {s}?"),
             "Which films did {o} produce?"),
    Relation("born_in", "person", "city",
             ("{s} was born in {o}.", "{s} is a native of {o}.", "{o} is the birthplace of {s}."),
             ("{s} was born in {o}.",),
             "the birthplace of {x}",
             ("Where was {s} born?", "In which city was {s} born?")),
    Relation("alma_mater", "person", "university",
             ("{s} studied at {o}.", "{s} is a graduate of {o}.", "{s} attended {o}."),
             ("{s} is an alumnus of {o}.",),
             "the university that {x} attended",
             ("Which university did {s} attend?", "Where did {s} study?"),
             "Which people studied at {o}?"),
    Relation("written_by", "book", "person",
             ("{s} was written by {o}.", "{o} wrote {s}.", "{s} is a book by {o}."),
             ("{o} wrote {s}.",),
             "the author of {x}",
             ("Who wrote {s}?", "Who is the author of {s}?"),
             "Which books did {o} write?"),
    Relation("published_by", "book", "company",
             ("{s} was published by {o}.", "{o} published {s}.", "{s} appeared under the imprint of {o}."),
             ("{o} published {s}.",),
             "the publisher of {x}",
             ("Who published {s}?", "Which company published {s}?")),
    Relation("award_received", "person", "award",
             ("{s} received the {o}.", "{s} was honoured with the {o}.", "The {o} was awarded to {s}."),
             ("{s} is a recipient of the {o}.",),
             "the award received by {x}",
             ("Which award did {s} receive?", "What award was {s} honoured with?")),
)

ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute("population", "country", 800_000, 90_000_000,
              ("{s} has a population of {o}.", "About {o} people live in {s}.", "The population of {s} is {o}."),
              ("In {y}, {s} had a population of {o}.", "As of {y}, about {o} people lived in {s}."),
              ("What is the population of {s}?", "How many people live in {s}?"), "population",
              "has the larger population", dated=True, quantity=True),
    Attribute("population", "city", 20_000, 4_000_000,
              ("{s} has a population of {o}.", "About {o} people live in {s}.", "The population of {s} is {o}."),
              ("In {y}, {s} had a population of {o}.", "As of {y}, about {o} people lived in {s}."),
              ("What is the population of {s}?", "How many people live in {s}?"), "population",
              "has the larger population", dated=True, quantity=True),
    Attribute("founded_year", "city", 900, 1950,
              ("{s} was founded in {o}.", "{s} dates back to {o}.", "The city of {s} was established in {o}."),
              (), ("When was {s} founded?", "In what year was {s} founded?"), "founding year",
              "was founded earlier", is_year=True),
    Attribute("founded_year", "university", 1500, 2005,
              ("{s} was founded in {o}.", "{s} opened its doors in {o}.", "{s} was established in {o}."),
              (), ("When was {s} founded?", "In what year was {s} established?"), "founding year",
              "was founded earlier", is_year=True),
    Attribute("students", "university", 1_500, 60_000,
              ("{s} enrols {o} students.", "About {o} students attend {s}.", "{s} has a student body of {o}."),
              ("In {y}, {s} enrolled {o} students.",),
              ("How many students does {s} have?", "How many students attend {s}?"), "number of students",
              "has more students", dated=True),
    Attribute("birth_year", "person", 1935, 2001,
              ("{s} was born in the year {o}.", "{s} was born in {o}.", "The birth year of {s} is {o}."),
              (), ("In what year was {s} born?", "When was {s} born?"), "birth year",
              "was born earlier", is_year=True),
    Attribute("founded_year", "company", 1890, 2022,
              ("{s} was founded in {o}.", "{s} was established in {o}.", "{s} started operating in {o}."),
              (), ("When was {s} founded?", "In what year was {s} founded?"), "founding year",
              "was founded earlier", is_year=True),
    Attribute("revenue", "company", 5, 90_000,
              ("{s} reported revenue of {o} million dollars.", "The annual revenue of {s} is {o} million dollars.",
               "{s} earns {o} million dollars a year."),
              ("In {y}, {s} reported revenue of {o} million dollars.",),
              ("What is the annual revenue of {s} in millions of dollars?", "How much revenue does {s} make, in millions of dollars?"),
              "annual revenue in millions of dollars", "has the higher revenue", unit="million dollars", dated=True,
              quantity=True),
    Attribute("employees", "company", 12, 250_000,
              ("{s} employs {o} people.", "{s} has {o} employees.", "The workforce of {s} numbers {o}."),
              ("In {y}, {s} employed {o} people.",),
              ("How many employees does {s} have?", "How many people work for {s}?"), "number of employees",
              "has more employees", dated=True),
    Attribute("launch_year", "product", 1975, 2024,
              ("{s} was launched in {o}.", "{s} first went on sale in {o}.", "{s} was released to the market in {o}."),
              (), ("When was {s} launched?", "In what year did {s} go on sale?"), "launch year",
              "was launched earlier", is_year=True),
    Attribute("price", "product", 9, 4_000,
              ("{s} costs {o} dollars.", "{s} sells for {o} dollars.", "The price of {s} is {o} dollars."),
              ("In {y}, {s} sold for {o} dollars.",),
              ("How much does {s} cost in dollars?", "What is the price of {s} in dollars?"), "price in dollars",
              "is more expensive", unit="dollars", dated=True, quantity=True),
    Attribute("release_year", "film", 1950, 2024,
              ("{s} was released in {o}.", "{s} premiered in {o}.", "{s} came out in {o}."),
              (), ("When was {s} released?", "In what year did {s} premiere?"), "release year",
              "was released earlier", is_year=True),
    Attribute("box_office", "film", 1, 2_500,
              ("{s} grossed {o} million dollars.", "{s} earned {o} million dollars at the box office.",
               "The box office of {s} reached {o} million dollars."),
              (), ("How much did {s} gross, in millions of dollars?", "What was the box office of {s} in millions of dollars?"),
              "box office in millions of dollars", "grossed more", unit="million dollars", quantity=True),
    Attribute("published_year", "book", 1900, 2024,
              ("{s} was published in {o}.", "{s} first appeared in {o}.", "{s} came out in {o}."),
              (), ("When was {s} published?", "In what year was {s} published?"), "publication year",
              "was published earlier", is_year=True),
    Attribute("pages", "book", 90, 1_200,
              ("{s} runs to {o} pages.", "{s} has {o} pages.", "{s} is {o} pages long."),
              (), ("How many pages does {s} have?", "How long is {s} in pages?"), "page count", "is longer"),
    Attribute("established_year", "award", 1900, 2015,
              ("The {s} was established in {o}.", "The {s} was first given in {o}.", "The {s} dates from {o}."),
              (), ("When was the {s} established?", "In what year was the {s} first awarded?"), "year of establishment",
              "was established earlier", is_year=True),
)

RELATION_BY_NAME = {r.name: r for r in RELATIONS}
ATTRIBUTES_BY_TYPE: dict[str, tuple[Attribute, ...]] = {
    t: tuple(a for a in ATTRIBUTES if a.entity_type == t) for t in ENTITY_TYPES
}
RELATIONS_FROM: dict[str, tuple[Relation, ...]] = {
    t: tuple(r for r in RELATIONS if r.subject_type == t) for t in ENTITY_TYPES
}

# What to call an entity of each type in a question ("Which city ...").
TYPE_WH = {
    "person": "Who is",
    "city": "Which city is",
    "country": "Which country is",
    "company": "Which company is",
    "university": "Which university is",
    "award": "Which award is",
    "product": "Which product is",
    "film": "Which film is",
    "book": "Which book is",
}

INTRO = {
    "country": "{s} is a country.",
    "city": "{s} is a city.",
    "university": "{s} is a university.",
    "person": "{s} is {a} {d}.",
    "company": "{s} is a company.",
    "product": "{s} is a product.",
    "film": "{s} is a feature film.",
    "book": "{s} is a book.",
    "award": "The {s} is an award.",
}

MENTION_SENTENCES = (
    "{a} and {b} announced a joint programme this spring.",
    "A festival in honour of {a} drew visitors from across the region.",
    "Critics compared {a} with {b} in a widely shared essay.",
    "{a} was mentioned in a report on regional trends.",
    "Local newspapers ran a feature on {a} last year.",
    "Visitors often confuse {a} with {b}.",
    "An exhibition about {a} opened near {b}.",
    "A documentary about {a} is in production.",
)
