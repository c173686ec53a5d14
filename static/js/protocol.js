// The table socket's close codes (docs/PROTOCOL.md §5): the client's one copy of the server's
// (app/rooms/protocol.py), which tests/app/test_client_protocol.py checks it against. Only the
// codes the client acts on or sends; any other close reconnects.

export const CLOSE = Object.freeze({
  NORMAL: 1000, // the client closes a socket it is done with
  POLICY: 1008, // refused at hello (a table that does not exist, among others)
  ROOM_CLOSED: 4000,
  REPLACED: 4001, // the same player connected again elsewhere
  REMOVED: 4002, // an operator took the player off the table
  BANNED: 4003, // an operator banned the player
});
