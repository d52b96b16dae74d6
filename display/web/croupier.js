// The croupier's page: tell the table what lies where on the layout.
"use strict";

const WORDS = {
  en: { title: "Faro", punter: "Punter", amount: "Amount", copper: "copper", marks: "in marks", bet: "Bet", withdraw: "Withdraw", clear: "Clear",
        call: "Call", callTitle: "Call the turn", locked: "Bets locked: a turn is being dealt", turn: "turn",
        inBox: ["card in the box", "cards in the box"], bankrolls: "Bankrolls", chooseRank: "Tap one rank, or two to four that touch",
        placed: "Done", bank: "bank", red: "red", black: "black",
        logIn: "Log in", username: "Account", password: "Password", logOut: "Log out", loggedInAs: "Logged in as", readerLost: "READER LOST",
        journalTrouble: "THE JOURNAL CANNOT WRITE, THE TABLE WAITS", connecting: "connecting…", live: "live",
        lost: "connection lost, reconnecting…", retrying: "the table is busy, trying again in {seconds} s…" },
  es: { title: "Faro", punter: "Jugador", amount: "Cantidad", copper: "copper", marks: "en marcas", bet: "Apostar", withdraw: "Retirar", clear: "Borrar",
        call: "Declarar", callTitle: "Declarar el turno", locked: "Apuestas cerradas: se reparte un turno", turn: "turno",
        inBox: ["carta en la caja", "cartas en la caja"], bankrolls: "Fichas", chooseRank: "Toque un valor, o de dos a cuatro contiguos",
        placed: "Hecho", bank: "banca", red: "rojo", black: "negro",
        logIn: "Entrar", username: "Cuenta", password: "Contraseña", logOut: "Salir", loggedInAs: "Dentro como", readerLost: "LECTOR PERDIDO",
        journalTrouble: "EL REGISTRO NO PUEDE ESCRIBIR, LA MESA ESPERA", connecting: "conectando…", live: "en directo",
        lost: "conexión perdida, reconectando…", retrying: "la mesa está ocupada, reintentando en {seconds} s…" },
  ru: { title: "Фаро", punter: "Понтёр", amount: "Ставка", copper: "коппер", marks: "марками", bet: "Поставить", withdraw: "Снять", clear: "Сбросить",
        call: "Объявить", callTitle: "Объявить абцуг", locked: "Ставки закрыты: мечется абцуг", turn: "абцуг",
        inBox: ["карта в ящике", "карты в ящике", "карт в ящике"], bankrolls: "Фишки", chooseRank: "Коснитесь достоинства или двух–четырёх соседних",
        placed: "Готово", bank: "банк", red: "красная", black: "чёрная",
        logIn: "Войти", username: "Учётная запись", password: "Пароль", logOut: "Выйти", loggedInAs: "Вход выполнен:" , readerLost: "СЧИТЫВАТЕЛЬ ПОТЕРЯН",
        journalTrouble: "ЖУРНАЛ НЕ ЗАПИСЫВАЕТСЯ, СТОЛ ЖДЁТ", connecting: "подключение…", live: "в эфире",
        lost: "связь потеряна, переподключение…", retrying: "стол занят, новая попытка через {seconds} с…" },
};
const asked = new URLSearchParams(location.search).get("lang") || document.documentElement.dataset.lang || "en";
// Only a language of our own: ?lang=constructor would otherwise find Object's.
const t = Object.hasOwn(WORDS, asked) ? WORDS[asked] : WORDS.en;
const TOP = ["A", "2", "3", "4", "5", "6"];
const BOTTOM = ["K", "Q", "J", "10", "9", "8"];
const AMOUNTS = [1, 2, 5, 10, 25];

const choice = { ranks: [], punter: null, amount: 1, order: [] };
let view = null;
// The broker account the person at the page logged in with: every command goes in its name,
// and the broker's access list decides what it may do. Kept only in this page's memory.
let login = null;

function button(text, onClick, extra) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  element.addEventListener("click", onClick);
  if (extra) Object.assign(element.dataset, extra);
  return element;
}

function spot() {
  const order = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  return choice.ranks.slice().sort((a, b) => order.indexOf(a) - order.indexOf(b)).join("+");
}

function build() {
  const layout = document.getElementById("layout");
  const cells = [...TOP.map((rank, column) => [rank, 1, column + 1]), ["7", 1, 7],
                 ...BOTTOM.map((rank, column) => [rank, 2, column + 1])];
  for (const [rank, row, column] of cells) {
    const spade = document.createElement("div");
    spade.className = "spade" + (rank === "7" ? " seven" : "");
    spade.dataset.rank = rank;
    if (rank !== "7") { spade.style.gridRow = row; spade.style.gridColumn = column; }
    spade.innerHTML = `<span class="label">${rank}</span><span class="suit">♠</span><div class="chips"></div>`;
    spade.addEventListener("click", () => {
      const at = choice.ranks.indexOf(rank);
      if (at >= 0) choice.ranks.splice(at, 1); else if (choice.ranks.length < 4) choice.ranks.push(rank);
      refresh();
    });
    layout.appendChild(spade);
  }
  document.getElementById("amounts").replaceChildren(...AMOUNTS.map((amount) =>
    button(String(amount), () => { choice.amount = amount; refresh(); }, { amount: String(amount) })));
  document.getElementById("bet").addEventListener("click", () => send("bet", {
    punter: choice.punter, spot: spot(), amount: choice.amount, copper: document.getElementById("copper").checked }));
  document.getElementById("withdraw").addEventListener("click", () => send("withdraw", {
    punter: choice.punter, spot: spot() }));
  document.getElementById("clear").addEventListener("click", () => { choice.ranks = []; choice.order = []; refresh(); });
  document.getElementById("call").addEventListener("click", () => send("call", {
    punter: choice.punter, order: choice.order, amount: choice.amount }));
  for (const [id, key] of [["title", "title"], ["punter-title", "punter"], ["amount-title", "amount"], ["copper-label", "copper"],
                           ["bet", "bet"], ["withdraw", "withdraw"], ["clear", "clear"], ["call", "call"],
                           ["call-title", "callTitle"], ["bankrolls-title", "bankrolls"], ["login-title", "logIn"],
                           ["username-label", "username"], ["password-label", "password"], ["log-in", "logIn"],
                           ["log-out", "logOut"]]) {
    document.getElementById(id).textContent = t[key];
  }
  document.getElementById("username").value = document.documentElement.dataset.account || "";
  document.getElementById("login").addEventListener("submit", (event) => { event.preventDefault(); logIn(); });
  document.getElementById("log-out").addEventListener("click", () => { login = null; showAccount(""); refresh(); });
  showAccount("");
}

function basicAuthorization(username, password) {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return "Basic " + btoa(String.fromCharCode(...bytes));
}

// JSON and the credentials in a header of their own: a page of another site cannot send
// either without the server's leave, which it never gives. credentials "omit" keeps the
// browser from asking for a password itself when the broker refuses one.
async function post(path, authorization, payload) {
  const response = await fetch(path, { method: "POST", credentials: "omit",
                                       headers: { "Content-Type": "application/json", Authorization: authorization },
                                       body: JSON.stringify(payload) });
  return { status: response.status, reply: await response.json() };
}

async function logIn() {
  const username = document.getElementById("username").value;
  const password = document.getElementById("password");
  const answer = document.getElementById("login-answer");
  answer.textContent = "…";
  const authorization = basicAuthorization(username, password.value);
  const { reply } = await post("/login", authorization, {});
  if (reply.ok) {
    login = { username, authorization };
    password.value = "";
  }
  showAccount(reply.ok ? "" : reply.error);
  refresh();
}

function showAccount(refusal) {
  // A page that takes no bets (it follows a journal, or the table has no betting account)
  // asks for no password: one typed would only cross the network for nothing.
  const onlyShown = document.documentElement.dataset.refusal || "";
  document.getElementById("only-shown").hidden = !onlyShown;
  document.getElementById("only-shown").textContent = onlyShown;
  document.getElementById("login").hidden = !!login || !!onlyShown;
  document.getElementById("logged-in").hidden = !login;
  document.getElementById("logged-in-as").textContent = login ? `${t.loggedInAs} ${login.username}` : "";
  document.getElementById("login-answer").textContent = refusal;
  document.body.dataset.account = login ? login.username : "";
}

async function send(verb, payload) {
  if (!login) return;
  const answer = document.getElementById("answer");
  answer.className = "";
  answer.textContent = "…";
  const { status, reply } = await post(`/cmd/${verb}`, login.authorization, payload);
  if (status === 401) {  // the broker no longer takes the account: log in again
    login = null;
    answer.textContent = "";
    showAccount(reply.error);
    refresh();
    return;
  }
  answer.className = reply.ok ? "ok" : "refused";
  answer.textContent = reply.ok ? t.placed : reply.error;
  if (reply.ok) { choice.ranks = []; choice.order = []; refresh(); }
}

function refresh() {
  if (!view) return;
  const locked = view.bets_locked || view.phase !== "betting" || !!view.alarm || !!view.journal_trouble;
  document.body.dataset.locked = locked ? "yes" : "no";
  document.body.dataset.seq = view.seq;
  const lockedBox = document.getElementById("locked");
  lockedBox.hidden = !view.bets_locked;
  lockedBox.textContent = t.locked;
  const alarm = document.getElementById("alarm");
  alarm.hidden = !view.alarm;
  alarm.textContent = view.alarm || "";
  renderReadersLost(view, t.readerLost);
  renderJournalTrouble(view, t.journalTrouble);
  document.getElementById("turn").textContent = `${t.turn} ${view.turn}`;
  document.getElementById("left").textContent = `${view.cards_left} ${counted(view.cards_left, t.inBox)}`;
  colourSeats(view.bankrolls);
  if (!choice.punter && view.bankrolls.length) choice.punter = view.bankrolls[0].punter;
  document.getElementById("punters").replaceChildren(...view.bankrolls.map((entry) =>
    button(entry.punter, () => { choice.punter = entry.punter; refresh(); }, { punter: entry.punter })));
  document.querySelectorAll("#punters button").forEach((b) => b.classList.toggle("selected", b.dataset.punter === choice.punter));
  document.querySelectorAll("#amounts button").forEach((b) => b.classList.toggle("selected", Number(b.dataset.amount) === choice.amount));
  const chips = {};
  const groups = [];
  for (const bet of view.bets) {
    if (bet.ranks.length === 1) (chips[bet.ranks[0]] ||= []).push(bet);
    else if (bet.ranks.length) groups.push(bet);
  }
  for (const lamp of view.lamps) {
    const spade = document.querySelector(`.spade[data-rank="${lamp.rank}"]`);
    spade.hidden = !lamp.in_deck;
    spade.classList.toggle("dead", lamp.dead);
    spade.classList.toggle("selected", choice.ranks.includes(lamp.rank));
    spade.querySelector(".chips").replaceChildren(...(chips[lamp.rank] || []).map((bet) => chipFor(bet, t.copper, t.marks)));
  }
  placeGroupChips(groups, t.copper, t.marks);
  document.getElementById("chosen").textContent = choice.ranks.length
    ? `${choice.punter || ""} · ${spot()} · ${choice.amount}` : t.chooseRank;
  for (const id of ["bet", "withdraw", "call"]) document.getElementById(id).disabled = locked || !login;
  const candidates = view.lamps.filter((lamp) => lamp.call_candidate).map((lamp) => lamp.rank);
  const callBox = document.getElementById("call-box");
  callBox.hidden = !candidates.length || locked;
  // Three of a kind left: the call names the colours' order (003's colour cat-hop).
  const words = candidates.length === 1 ? ["red", "black"] : candidates;
  document.getElementById("call-order").replaceChildren(...words.map((word) =>
    button(t[word] || word, () => { if (choice.order.length < 3) choice.order.push(word); refresh(); }, { word })),
    button("⌫", () => { choice.order.pop(); refresh(); }));
  document.getElementById("chosen").textContent += choice.order.length ? ` · ${choice.order.join(" ")}` : "";
  document.getElementById("bankrolls").replaceChildren(
    ...[[t.bank, view.bank, null], ...view.bankrolls.map((entry) => [entry.punter, entry.chips, entry])]
      .map(([name, chips, entry]) => {
        const item = document.createElement("li");
        item.textContent = `${name}: ${chips}`;
        markAsKey(item, entry);
        return item;
      }));
}

build();
let stream = null;
function connect() {
  stream = openLiveStream((message) => {
    view = JSON.parse(message.data);
    // The journal `dealtable web` follows gave way to a baccarat table's: this page lays
    // bets on a Faro layout, and the server, asked again, says which game the table deals.
    if (view.game && view.game !== "faro") { stream.close(); location.reload(); return; }
    refresh();
  }, showConnection(t));
}
// As on the table's page: a cached page lets its stream go, and takes it up again when shown.
window.addEventListener("pagehide", () => { if (stream) stream.close(); });
window.addEventListener("pageshow", (shown) => { if (shown.persisted) connect(); });
connect();
window.addEventListener("resize", refresh);
