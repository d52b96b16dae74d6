// The web table: draws the view the service sends over server-sent events.
"use strict";

const WORDS = {
  en: { title: "Faro", deal: "deal", turn: "turn", soda: "soda out, bets open", inBox: ["card in the box", "cards in the box"],
        splits: "splits", lastTurn: "Last turn", casekeep: "Casekeep", bankrolls: "Bankrolls", history: "History",
        loses: "loses", wins: "wins", split: "split", bank: "bank", house: "house", commissionBox: "commission", locked: "bets locked", over: "deal over, hoc",
        noDeck: "waiting for a new deck", awaitingSoda: "waiting for the soda", connecting: "connecting…",
        live: "live", lost: "connection lost, reconnecting…", retrying: "the table is busy, trying again in {seconds} s…", unknownLanguage: "Language not known here: English.",
        coppered: "coppered", marks: "in marks", calls: "calls", alarm: "ALARM", readerLost: "READER LOST", journalTrouble: "THE JOURNAL CANNOT WRITE, THE TABLE WAITS", cardsLeft: "left", edge: "edge",
        evenStake: "edges per chip of an even stake: an odd stake loses its odd chip on a split", notAlone: "only beside a rank that can split",
        shoe: "shoe", coup: "coup", player: "player", banker: "banker", right: "right", left: "left",
        tie: "tie", win: "wins", beadPlate: "Bead plate", bigRoad: "Big road", bigEyeBoy: "Big eye boy",
        smallRoad: "Small road", cockroachPig: "Cockroach pig", banksHeld: "banks held",
        sessionOver: "session over: everyone has held the bank as often;", sessionWinner: "wins",
        spots: { high: "high card", odd: "odd", even: "even", red: "red", black: "black" } },
  es: { title: "Faro", deal: "mano", turn: "turno", soda: "soda fuera, apuestas abiertas", inBox: ["carta en la caja", "cartas en la caja"],
        splits: "splits", lastTurn: "Último turno", casekeep: "Casekeep", bankrolls: "Fichas", history: "Historial",
        loses: "pierde", wins: "gana", split: "split", bank: "banca", house: "casa", commissionBox: "comisión", locked: "apuestas cerradas", over: "mano terminada, hoc",
        noDeck: "esperando un mazo nuevo", awaitingSoda: "esperando la soda", connecting: "conectando…",
        live: "en directo", lost: "conexión perdida, reconectando…", retrying: "la mesa está ocupada, reintentando en {seconds} s…", unknownLanguage: "",
        coppered: "con copper", marks: "en marcas", calls: "declara", alarm: "ALARMA", readerLost: "LECTOR PERDIDO", journalTrouble: "EL REGISTRO NO PUEDE ESCRIBIR, LA MESA ESPERA", cardsLeft: "quedan", edge: "ventaja",
        evenStake: "ventaja por ficha de una apuesta par: una apuesta impar pierde su ficha impar en un split", notAlone: "solo junto a un rango que pueda hacer split",
        shoe: "zapato", coup: "mano", player: "punto", banker: "banca", right: "derecha", left: "izquierda",
        tie: "empate", win: "gana", beadPlate: "Plato de cuentas", bigRoad: "Camino grande", bigEyeBoy: "Ojo grande",
        smallRoad: "Camino pequeño", cockroachPig: "Cucaracha", banksHeld: "veces con la banca",
        sessionOver: "sesión terminada: todos han tenido la banca las mismas veces;", sessionWinner: "gana",
        spots: { high: "carta alta", odd: "impar", even: "par", red: "rojo", black: "negro" } },
  ru: { title: "Фаро", deal: "талия", turn: "абцуг", soda: "сода открыта, ставки принимаются", inBox: ["карта в ящике", "карты в ящике", "карт в ящике"],
        splits: "плие", lastTurn: "Последний абцуг", casekeep: "Кейскипер", bankrolls: "Фишки", history: "История",
        loses: "проигрывает", wins: "выигрывает", split: "плие", bank: "банк", house: "заведение", commissionBox: "комиссия", locked: "ставки закрыты", over: "талия окончена, гок",
        noDeck: "ждём новую колоду", awaitingSoda: "ждём соду", connecting: "подключение…",
        live: "в эфире", lost: "связь потеряна, переподключение…", retrying: "стол занят, новая попытка через {seconds} с…", unknownLanguage: "",
        coppered: "копперированная", marks: "марками", calls: "объявляет", alarm: "ТРЕВОГА", readerLost: "СЧИТЫВАТЕЛЬ ПОТЕРЯН", journalTrouble: "ЖУРНАЛ НЕ ЗАПИСЫВАЕТСЯ, СТОЛ ЖДЁТ", cardsLeft: "осталось",
        edge: "преимущество банка", evenStake: "преимущество на фишку чётной ставки: нечётная ставка при плие теряет лишнюю фишку",
        notAlone: "только вместе с рангом, который может дать плие", shoe: "шуз", coup: "кон", player: "игрок", banker: "банкир",
        right: "правая", left: "левая", tie: "ничья", win: "выигрывает", beadPlate: "Бусы",
        bigRoad: "Большая дорога", bigEyeBoy: "Большой глаз", smallRoad: "Малая дорога",
        cockroachPig: "Таракан", banksHeld: "держали банк",
        sessionOver: "партия окончена: все держали банк поровну;", sessionWinner: "выигрывает",
        spots: { high: "старшая карта", odd: "нечет", even: "чет", red: "красное", black: "чёрное" } },
};

const TOP = ["A", "2", "3", "4", "5", "6"];
const BOTTOM = ["K", "Q", "J", "10", "9", "8"];
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

const asked = new URLSearchParams(location.search).get("lang") || document.documentElement.dataset.lang || "en";
// Only a language of our own: ?lang=constructor would otherwise find Object's.
const known = Object.hasOwn(WORDS, asked);
const lang = known ? asked : "en";
const t = WORDS[lang];
document.documentElement.lang = lang;
if (!known) {
  const notice = document.getElementById("notice");
  notice.textContent = WORDS.en.unknownLanguage + " (" + asked + ")";
  notice.hidden = false;
}

function cardText(code) {
  return code.slice(0, -1) + SUITS[code.slice(-1)];
}

function setCard(element, code) {
  element.textContent = code ? cardText(code) : "";
  element.classList.toggle("red", !!code && "HD".includes(code.slice(-1)));
  element.dataset.card = code || "";
}

function buildLayout() {
  const layout = document.getElementById("layout");
  const cells = [...TOP.map((rank, column) => [rank, 1, column + 1]), ["7", 1, 7],
                 ...BOTTOM.map((rank, column) => [rank, 2, column + 1])];
  for (const [rank, row, column] of cells) {
    const spade = document.createElement("div");
    spade.className = "spade" + (rank === "7" ? " seven" : "");
    spade.dataset.rank = rank;
    if (rank !== "7") { spade.style.gridRow = row; spade.style.gridColumn = column; }
    spade.innerHTML = `<span class="label">${rank}</span><span class="suit">♠</span>` +
      '<span class="advice"></span><div class="chips"></div>';
    layout.appendChild(spade);
  }
  const abacus = document.getElementById("abacus");
  for (const rank of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]) {
    const spindle = document.createElement("div");
    spindle.className = "spindle";
    spindle.dataset.rank = rank;
    spindle.innerHTML = `<span class="rank">${rank}</span>` + '<span class="bead"></span>'.repeat(4);
    abacus.appendChild(spindle);
  }
  for (const [id, key] of [["title", "title"], ["last-turn-title", "lastTurn"], ["casekeep-title", "casekeep"],
                           ["bankrolls-title", "bankrolls"], ["history-title", "history"]]) {
    document.getElementById(id).textContent = t[key];
  }
}

function phaseText(view) {
  if (view.phase === "no-deck") return t.noDeck;
  if (view.phase === "awaiting-soda") return t.awaitingSoda;
  if (view.phase === "finished") return `${t.over} ${view.hoc ? cardText(view.hoc) : ""}`;
  if (view.turn === 0) return t.soda;
  return `${t.turn} ${view.turn}` + (view.bets_locked ? ` · ${t.locked}` : "");
}

// The bank (with its holder, where a player holds it), the house's commission at baccarat,
// and every punter's chips with the commission their box still notes, at any game.
function renderBankrolls(view) {
  document.getElementById("bankrolls").replaceChildren(
    ...[[t.bank + (view.banker ? ` (${view.banker})` : ""), view.bank, null],
        ...(view.house ? [[t.house, view.house, null]] : []),
        ...view.bankrolls.map((entry) => [entry.punter,
          entry.commission_box ? `${entry.chips} (${t.commissionBox} ${entry.commission_box})` : entry.chips,
          entry])]
      .map(([name, chips, entry]) => {
        const item = document.createElement("li");
        item.textContent = `${name}: ${chips}`;
        item.dataset.punter = name;
        markAsKey(item, entry);
        return item;
      }));
}

// 001's home session: who has held the bank, and once all have as often, who won.
function renderSession(session) {
  const line = document.getElementById("session");
  line.hidden = !session;
  if (!session) return;
  const held = Object.entries(session.banks_held).map(([name, times]) => `${name} ${times}`).join(", ");
  line.textContent = session.over ? `${t.sessionOver} ${session.winner} ${t.sessionWinner}`
    : `${t.banksHeld}: ${held}`;
}

// The journal `dealtable web` follows may give way to one of another game while the page
// is open: each view shows the parts of its own game's table, and those of the other none.
const FARO_STATUS = document.getElementById("status").innerHTML;

function showGame(faro) {
  document.getElementById("table").hidden = !faro;
  document.getElementById("baccarat").hidden = faro;
  document.querySelectorAll(".faro-only").forEach((element) => { element.hidden = !faro; });
  if (faro && !document.getElementById("deal")) document.getElementById("status").innerHTML = FARO_STATUS;
}

function renderBaccarat(view) {
  document.body.dataset.seq = view.seq;
  document.body.dataset.phase = view.phase;
  document.body.dataset.game = view.game;
  showGame(false);
  document.getElementById("title").textContent = view.title;
  document.getElementById("status").textContent = `${t.shoe} ${view.shoe} · ${t.coup} ${view.coup}`;
  const alarm = document.getElementById("alarm");
  alarm.hidden = !view.alarm;
  alarm.textContent = view.alarm ? `${t.alarm}: ${view.alarm}` : "";
  renderReadersLost(view, t.readerLost);
  renderJournalTrouble(view, t.journalTrouble);
  document.getElementById("hands").replaceChildren(...view.hands.map((hand) => {
    const box = document.createElement("div");
    box.className = "hand";
    box.dataset.hand = hand.name;
    box.innerHTML = `<h3>${t[hand.name] || hand.name}</h3>`;
    for (const code of hand.cards) {
      const card = document.createElement("span");
      setCard(card, code);
      // A card still face down at the table (null) shows its back, never its face.
      card.className += code === null ? " card back" : " card";
      if (code === null) card.textContent = "\u{1F0A0}";
      box.appendChild(card);
    }
    const points = document.createElement("div");
    points.className = "total";
    points.textContent = hand.cards.length && hand.total !== null ? hand.total : "";
    box.appendChild(points);
    return box;
  }));
  const result = view.last_result;
  // Banque deals two player hands: each is named with its own result.
  const outcome = (winner) => (winner === "tie" ? t.tie : `${t[winner]} ${t.win}`);
  const hands = result ? Object.entries(result.winners || {}) : [];
  document.getElementById("result").textContent = result
    ? `${t.coup} ${result.coup}: ` + (hands.length > 1
      ? hands.map(([hand, winner]) => `${t[hand] || hand}: ${outcome(winner)}`).join(" · ")
      : outcome(result.winner))
    : "";
  for (const road of document.querySelectorAll(".road")) {
    road.querySelector("h2").textContent = t[road.querySelector("h2").dataset.word];
    const data = view.roads[road.dataset.road];
    road.querySelector(".grid").replaceChildren(...data.cells.map((cell) => {
      const element = document.createElement("span");
      element.className = `cell ${cell.outcome}`;
      element.style.gridColumn = cell.column + 1;
      element.style.gridRow = cell.row + 1;
      element.textContent = cell.ties ? String(cell.ties) : "";
      return element;
    }));
  }
  renderBankrolls(view);
  renderSession(null);
}

function render(view) {
  if (view.game && view.game !== "faro") { renderBaccarat(view); return; }
  document.body.dataset.seq = view.seq;
  document.body.dataset.phase = view.phase;
  document.body.dataset.game = "faro";
  showGame(true);
  colourSeats(view.bankrolls);
  document.getElementById("title").textContent = t.title;
  document.getElementById("deal").textContent = `${t.deal} ${view.deal}`;
  document.getElementById("turn").textContent = phaseText(view);
  document.getElementById("left").textContent = `${view.cards_left} ${counted(view.cards_left, t.inBox)}`;
  document.getElementById("splits").textContent = `${view.splits} ${counted(view.splits, [t.split, t.splits])}`;
  const alarm = document.getElementById("alarm");
  alarm.hidden = !view.alarm;
  alarm.textContent = view.alarm ? `${t.alarm}: ${view.alarm}` : "";
  renderReadersLost(view, t.readerLost);
  renderJournalTrouble(view, t.journalTrouble);

  const chipsByRank = {};
  const groups = [];
  const standing = [];
  for (const bet of view.bets) {
    if (bet.ranks.length === 1) {
      (chipsByRank[bet.ranks[0]] ||= []).push(bet);
    } else if (bet.ranks.length) {
      groups.push(bet);
    } else if (bet.order) {
      standing.push(`${bet.punter} ${t.calls} ${bet.order.join(" ")} · ${bet.stake}`);
    } else {
      // High card, odd, even, red, black: in the page's words (Object.hasOwn: a spot is data).
      const spot = Object.hasOwn(t.spots, bet.spot) ? t.spots[bet.spot] : bet.spot;
      standing.push(`${bet.punter} · ${spot} · ${bet.stake}`);
    }
  }
  for (const lamp of view.lamps) {
    const spade = document.querySelector(`.spade[data-rank="${lamp.rank}"]`);
    spade.hidden = !lamp.in_deck;
    spade.classList.toggle("dead", lamp.dead);
    spade.classList.toggle("cases", lamp.cases);
    for (const name of ["loser", "winner", "split"]) spade.classList.toggle(name, lamp.last_turn === name);
    spade.classList.toggle("candidate", lamp.call_candidate);
    const chips = spade.querySelector(".chips");
    chips.replaceChildren(...(chipsByRank[lamp.rank] || []).map((bet) => chipFor(bet, t.coppered, t.marks)));
  }
  placeGroupChips(groups, t.coppered, t.marks);
  document.getElementById("standing").textContent = standing.join("   ·   ");
  const advice = {};
  for (const entry of (view.advice ? view.advice.ranks : [])) advice[entry.rank] = entry;
  for (const spade of document.querySelectorAll(".spade")) {
    const entry = advice[spade.dataset.rank];
    spade.querySelector(".advice").textContent = entry
      ? `${entry.left} ${t.cardsLeft} · ${t.edge} ${entry.edge_percent}`
        + (entry.taken_alone === false ? ` · ${t.notAlone}` : "") : "";
  }
  // The bank takes the odd chip of a split: the edges shown are those of an even stake.
  document.getElementById("advice-note").textContent =
    view.advice && view.advice.edges_per !== "chip" ? t.evenStake : "";

  for (const spindle of view.abacus) {
    const element = document.querySelector(`.spindle[data-rank="${spindle.rank}"]`);
    element.classList.toggle("finished", spindle.finished);
    element.classList.toggle("cases", spindle.cases);
    element.querySelectorAll(".bead").forEach((bead, index) => {
      bead.className = "bead " + spindle.beads[index];
    });
  }

  const [loser, winner] = view.last_turn || [null, null];
  setCard(document.getElementById("loser"), loser);
  setCard(document.getElementById("winner"), winner);
  const words = document.getElementById("last-turn-words");
  words.textContent = loser ? (loser.slice(0, -1) === winner.slice(0, -1) ? t.split
    : `${cardText(loser)} ${t.loses} · ${cardText(winner)} ${t.wins}`) : "";

  renderBankrolls(view);
  renderSession(view.session);
  document.getElementById("history").replaceChildren(...view.history.slice().reverse().slice(0, 12).map((turn) => {
    const item = document.createElement("li");
    item.value = turn.turn;
    item.textContent = turn.loser && turn.winner
      ? `${cardText(turn.loser)} ${t.loses} · ${cardText(turn.winner)} ${t.wins}${turn.split ? " · " + t.split : ""}`
      : (turn.loser ? `${cardText(turn.loser)} ${t.loses}` : "");
    return item;
  }));
}

let lastView = null;
window.addEventListener("resize", () => { if (lastView) render(lastView); });

let stream = null;

function connect() {
  stream = openLiveStream(
    (message) => { lastView = JSON.parse(message.data); render(lastView); }, showConnection(t));
}

// A page kept in the browser's back-forward cache would keep its stream open, and a browser
// opens only six at a time to one server: a tablet flipping between the table's page and
// the croupier's would wait a minute for the seventh.
window.addEventListener("pagehide", () => { if (stream) stream.close(); });
window.addEventListener("pageshow", (shown) => { if (shown.persisted) connect(); });

buildLayout();
connect();
