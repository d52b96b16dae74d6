// Shared by the table's page and the croupier's page: counts in words, the chips, and the
// card readers lost.
"use strict";

// The form of a noun after a number: [one, many] in English and Spanish; [one, few, many]
// in Russian (1 карта, 2 карты, 5 карт, 21 карта).
function counted(number, forms) {
  if (forms.length === 2) return number === 1 ? forms[0] : forms[1];
  const tens = number % 100, units = number % 10;
  if (units === 1 && tens !== 11) return forms[0];
  if (units >= 2 && units <= 4 && (tens < 12 || tens > 14)) return forms[1];
  return forms[2];
}

const CHIP_COLOURS = ["#1f5fbf", "#b8262e", "#6b2fa0", "#c77a00", "#0f7f6f", "#444", "#a0522d", "#2e7d32"];
// A Map, as a punter may be named constructor or __proto__.
const punterColour = new Map();
function colourOf(punter) {
  if (!punterColour.has(punter)) {
    punterColour.set(punter, CHIP_COLOURS[punterColour.size % CHIP_COLOURS.length]);
  }
  return punterColour.get(punter);
}

// Colours go by seat, so that a punter keeps hers all session and the bankrolls' key agrees
// with the layout whichever a page draws first.
function colourSeats(bankrolls) {
  for (const entry of bankrolls) colourOf(entry.punter);
}

// A chip's tag: the punter's first letter, more where two share it (the view's tag, as the
// terminal's: dan "D", dora "Do").
function chipTag(punter, tag) {
  const text = tag || punter.slice(0, 1);
  return text.slice(0, 1).toUpperCase() + text.slice(1);
}

// A punter's bankroll line begins with a chip of her colour and tag: the layout's key. A
// baccarat punter's entry has no tag, and her line no chip.
function markAsKey(item, entry) {
  if (!entry || entry.tag === undefined) return;
  item.dataset.tag = chipTag(entry.punter, entry.tag);
  item.style.setProperty("--chip", colourOf(entry.punter));
}

// 003's betting marks are credit, not chips: marked "m", as on the terminal.
function chipFor(bet, copperedWord, marksWord) {
  const chip = document.createElement("span");
  chip.className = "chip" + (bet.coppered ? " coppered" : "") + (bet.mark ? " mark" : "");
  chip.style.background = colourOf(bet.punter);
  chip.title = `${bet.punter} ${bet.stake} ${bet.spot}${bet.coppered ? " " + copperedWord : ""}`
    + (bet.mark ? " " + marksWord : "");
  chip.textContent = chipTag(bet.punter, bet.tag) + bet.stake + (bet.mark ? "m" : "");
  chip.dataset.punter = bet.punter;
  chip.dataset.spot = bet.spot;
  return chip;
}

// A bet on two to four ranks lies where the view's place for it says (the layout's chip_place,
// in row and column units): between two cards, on a corner, or off a card's outer edge.
// Chips on the same place step aside.
function placeGroupChips(groups, copperedWord, marksWord) {
  const layout = document.getElementById("layout");
  layout.querySelectorAll(".chip.group").forEach((chip) => chip.remove());
  const centre = (rank) => {
    const card = document.querySelector(`.spade[data-rank="${rank}"]`);
    return [card.offsetLeft + card.offsetWidth / 2, card.offsetTop + card.offsetHeight / 2, card.offsetHeight];
  };
  const [aceX, topY, height] = centre("A");
  const columnStep = centre("2")[0] - aceX;
  const rowStep = centre("K")[1] - topY;
  const taken = {};
  for (const bet of groups) {
    const [row, column, outward] = bet.place;
    const x = aceX + column * columnStep;
    // Off the edge: clear of the chips that lie on the card, further out for each one more.
    const y = topY + row * rowStep + outward * height / 2;
    const place = `${row},${column},${outward}`;
    const step = taken[place] = (taken[place] || 0) + 1;
    const away = outward * 0.9 + (step - 1) * (outward < 0 ? -2.8 : 2.8);
    const chip = chipFor(bet, copperedWord, marksWord);
    chip.classList.add("group");
    chip.style.left = `${x}px`;
    chip.style.top = `calc(${y}px + ${away}rem)`;
    layout.appendChild(chip);
  }
}

// The journal cannot write (a disk full or failing): nothing moves until it can, and the
// cards read meanwhile are held.
function renderJournalTrouble(view, troubleWord) {
  const line = document.getElementById("journal-trouble");
  line.hidden = !view.journal_trouble;
  line.textContent = view.journal_trouble ? `${troubleWord}: ${view.journal_trouble}` : "";
}

// A reader lost stops no card: the dealer deals from the console until it is back.
function renderReadersLost(view, lostWord) {
  const lost = Object.entries(view.readers_lost || {});
  const line = document.getElementById("readers-lost");
  line.hidden = lost.length === 0;
  line.textContent = lost.map(([reader, message]) => `${lostWord} (${reader}): ${message}`).join(" · ");
}

// The live stream of the table's view, opened again by itself. A browser's EventSource
// retries a connection that drops, but not one the server answers with an error status
// (503 when it serves all the live streams it may): the page would say "lost" until
// reloaded. Refused, it is opened again after a delay, doubled at each refusal up to the 30 s
// the server's Retry-After asks (EventSource cannot read it), each with a jitter so that
// pages refused together do not all come back at once. `shown(state, seconds)` hears
// "connecting", "live", "lost" (the browser retrying) and "retrying" (in `seconds`, counted
// down). Returns what closes it.
const STREAM_RETRY_FIRST_SECONDS = 1;
const STREAM_RETRY_MOST_SECONDS = 30;
function openLiveStream(onMessage, shown) {
  let source = null, timer = null, countdown = null, delay = STREAM_RETRY_FIRST_SECONDS;
  const stopWaiting = () => { clearTimeout(timer); clearInterval(countdown); };
  function open() {
    stopWaiting();
    shown("connecting");
    source = new EventSource("/stream");
    source.onopen = () => { delay = STREAM_RETRY_FIRST_SECONDS; shown("live"); };
    source.onmessage = onMessage;
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) { shown("lost"); return; }
      source.close();
      const wait = delay * (0.8 + 0.4 * Math.random());
      delay = Math.min(delay * 2, STREAM_RETRY_MOST_SECONDS);
      let left = Math.ceil(wait);
      shown("retrying", left);
      countdown = setInterval(() => { left = Math.max(left - 1, 1); shown("retrying", left); }, 1000);
      timer = setTimeout(open, wait * 1000);
    };
  }
  open();
  return { close() { stopWaiting(); source.close(); } };
}

// What the connection's line says in each state (see openLiveStream).
function showConnection(words) {
  const status = document.getElementById("connection");
  return (state, seconds) => {
    status.dataset.state = state;
    status.textContent = state === "retrying" ? words.retrying.replace("{seconds}", seconds) : words[state];
  };
}
