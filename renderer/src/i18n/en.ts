/**
 * Every string the guard sees, in English. Another language is one more file beside this one
 * (`ha.ts`, `yo.ts`, `ig.ts`, `pcm.ts`) exporting `language` and a `catalogue` typed as
 * `Catalogue`: the compiler then refuses a missing or misspelt key. `{name}` marks a value
 * filled in at run time; keep it in the translation.
 */
export const language = { code: 'en', name: 'English' };

export const catalogue = {
  // Status bar
  'status.online': 'Online',
  'status.offline': 'Offline',
  'status.syncing': 'Syncing…',
  'status.syncNow': 'Send now',
  'status.waiting': 'Waiting to send: {count}',
  'status.lastSync': 'Last sync {time}',
  'status.neverSynced': 'Never synced',
  'status.attention': 'Needs attention: {count}',
  'status.noAttention': 'Nothing needs attention',
  'status.guard': 'On duty: {name}',
  'status.problem': 'Cannot sync: {problem}',
  'status.noCoverage': 'No responders near this gate: an SOS reaches the estate\'s numbers only',
  'status.testGate': 'TEST GATE (sandbox): no real responder comes',

  // Navigation
  'nav.label': 'Screens',
  'nav.scan': 'Scan',
  'nav.walkIn': 'Walk-in',
  'nav.onPremises': 'On premises',
  'nav.panic': 'PANIC',
  'nav.day': 'Day view',
  'nav.night': 'Night view',
  'nav.changeGuard': 'Change guard',

  // Scan
  'scan.title': 'Scan a pass',
  'scan.hint': 'Hold the QR code inside the box',
  'scan.typeCode': 'Type a code',
  'scan.switchCamera': 'Switch camera',
  'scan.cameraName': 'Camera: {name}',
  'scan.torchOn': 'Light on',
  'scan.torchOff': 'Light off',
  'scan.cameraStarting': 'Starting camera…',
  'scan.cameraFailed': 'No camera. Type the code, or use the USB scanner.',
  'scan.recent': 'Recent',
  'scan.noRecent': 'No scans yet',
  'scan.checking': 'Checking…',

  // Keypad
  'keypad.title': 'Type the code',
  'keypad.placeholder': 'e.g. DEMO-7K2P',
  'keypad.check': 'CHECK',
  'keypad.clear': 'Clear',
  'keypad.close': 'Back to camera',
  'keypad.backspace': 'Delete',
  'keypad.space': 'Space',
  'keypad.hide': 'Hide keyboard',
  'keypad.show': 'Keyboard',

  // Result
  'result.admitted': 'LET IN',
  'result.refused': 'DO NOT LET IN',
  'result.purpose': 'Purpose',
  'result.host': 'Visiting',
  'result.usesLeft': 'Uses left',
  'result.unknown': '—',
  'result.offline': 'Decided offline: the server will confirm when the link is back',
  'result.offlineRefused': 'Decided offline, from the codes this kiosk holds',
  'result.next': 'Next visitor',
  'result.noName': 'Name not recorded',

  // Reasons a scan was decided as it was: the headline, then what the guard should do.
  'reason.admitted': 'Valid pass',
  'reason.not_found': 'Code not found',
  'reason.not_found.detail': 'This code is not in the system. Check it was typed right, or call the host.',
  'reason.revoked': 'Code has been revoked',
  'reason.revoked.detail': 'The host cancelled this pass. Call the host.',
  'reason.used_up': 'Maximum uses reached',
  'reason.used_up.detail': 'This pass has already been used. Call the host for a new one.',
  'reason.not_yet_active': 'Code not yet active',
  'reason.not_yet_active.detail': 'This pass is for a later time.',
  'reason.expired': 'Code has expired',
  'reason.expired.detail': 'This pass is no longer valid. Call the host for a new one.',
  'reason.invalid_pass': 'Pass not recognised',
  'reason.invalid_pass.detail': 'The pass is damaged, changed, or not from this estate.',
  'reason.too_many_attempts': 'Too many wrong codes',
  'reason.too_many_attempts.detail': 'Wait one minute, then try again.',
  'reason.other_site': 'Pass for another estate',
  'reason.other_site.detail': 'This pass is not for this estate. Do not admit; call the host.',
  'reason.other_entry_point': 'Pass for another gate',
  'reason.other_entry_point.detail': 'This pass is for another gate of this estate. Send the visitor there.',

  // Walk-in
  'walkIn.title': 'Walk-in visitor',
  'walkIn.name': 'Visitor name',
  'walkIn.phone': 'Phone',
  'walkIn.host': 'Visiting (name or house)',
  'walkIn.notes': 'Notes (optional)',
  'walkIn.submit': 'CHECK IN',
  'walkIn.done': '{name} is checked in',
  'walkIn.queued': 'Saved here; it will reach the server when the link is back',
  'walkIn.missing': 'Fill in: {fields}',

  // On premises
  'onPremises.title': 'On premises',
  'onPremises.count': '{count} inside',
  'onPremises.search': 'Search',
  'onPremises.empty': 'Nobody is inside',
  'onPremises.noMatch': 'Nobody matches “{search}”',
  'onPremises.since': 'Since {time} · {duration}',
  'onPremises.visiting': 'Visiting {host}',
  'onPremises.walkIn': 'Walk-in',
  'onPremises.code': 'Pass',
  'onPremises.pending': 'Waiting to sync',
  'onPremises.checkout': 'Check out',
  'onPremises.confirm': 'Tap again: {name} leaves',
  'onPremises.checkedOut': '{name} checked out',
  'onPremises.localOnly': 'Showing this gate only (offline)',

  // Panic
  'panic.title': 'Emergency',
  'panic.hold': 'HOLD FOR HELP',
  'panic.holdHint': 'Press and hold for 2 seconds',
  'panic.explain': 'The nearest responder is sent to this gate. This screen then shows who is coming and when.',
  'panic.keepHolding': 'KEEP HOLDING…',
  'panic.tooShort': 'Not sent. Hold the button until it is full.',
  'panic.sending': 'Sending SOS…',
  'panic.sent': 'SOS SENT',
  'panic.notSent': 'SOS NOT SENT YET, retrying',
  'panic.refused': 'SOS REFUSED by the server: raise the alarm another way',
  'panic.attempts': 'Tries: {count}',
  'panic.nextAttempt': 'Next try in {seconds} s',
  'panic.status': 'Status: {status}',
  'panic.waitingResponder': 'Finding the nearest responder…',
  'panic.responder': 'Responder: {name}',
  'panic.eta': 'Arriving in about {minutes} min',
  'panic.call': 'Phone: {phone}',
  'panic.arrivingNow': 'Arriving now',
  'panic.onScene': 'The responder is at the gate',
  'panic.escalated': 'The service is still calling more responders',
  'panic.over.resolved': 'This SOS is over: resolved',
  'panic.over.cancelled': 'The estate cancelled this SOS. Hold again if you still need help',
  'panic.alreadySent': 'SOS already sent at {time}. Help is already called',
  'panic.reportTitle': 'What did you do?',
  'panic.report.called_for_help': 'I called for help',
  'panic.report.false_alarm': 'False alarm',
  'panic.reported.called_for_help': 'You called for help at {time}. The estate\'s list is told.',
  'panic.reported.false_alarm': 'You reported a false alarm at {time}. The control room closes the SOS.',
  'panic.reported.waiting': 'Not sent yet: it goes with the SOS when the link returns.',
  'panic.raiseAlarm': 'Do not wait: raise the alarm another way now',
  'panic.callPhones': 'Call {phones}',
  'panic.nobody': 'NOBODY HAS ACCEPTED YOUR SOS',
  'panic.nobodyUrgent': 'STILL NOBODY HAS ACCEPTED YOUR SOS',
  'panic.callNowUrgent': 'Call for help yourself NOW: nobody is coming yet',
  'panic.unknown': 'SOS SENT, STATUS UNKNOWN: the link is down',
  'panic.sentNoCoverage': 'SOS SENT, but no responder is near this gate',
  'panic.noCoverageNow': 'No responder is near this gate: raise the alarm another way now',
  'panic.noResponderNear': 'No responder is near this gate',
  'incident.created': 'Received',
  'incident.dispatching': 'Finding a responder',
  'incident.assigned': 'Responder assigned',
  'incident.responding': 'Responder on the way',
  'incident.on_scene': 'Responder at the gate',
  'incident.escalated': 'Widening the search for help',
  'incident.unresponsive': 'No responder yet: still trying',
  'incident.resolved': 'Resolved',
  'incident.cancelled': 'Cancelled',

  // Needs attention
  'attention.title': 'Needs attention',
  'attention.empty': 'Nothing needs attention.',
  'attention.dismiss': 'Done',
  'attention.close': 'Close',
  'attention.server': 'Server: {message}',
  'attention.admission_refused': '{name} was let in offline with {code}, but the server refused the code: find the visitor and call the host',
  'attention.refusal_overturned': '{name} was turned away offline with {code}, but the server accepted the code; the visit was closed on the server',
  'attention.operation_refused': 'The server refused {operation}',
  'attention.op.validate': 'a scan',
  'attention.op.walk_in': 'a walk-in check-in',
  'attention.op.checkout': 'a check-out',
  'attention.op.panic': 'an SOS',
  'attention.someone': 'A visitor',

  // First-run setup
  'setup.title': 'Set up this gate',
  'setup.intro': 'Enter what the estate manager gave you. The kiosk checks it with the server before saving.',
  'setup.serverUrl': 'Server URL',
  'setup.apiKey': 'Kiosk API key',
  'setup.entryPoint': 'Gate name',
  'setup.entryPoint.example': 'Gate A',
  'setup.latitude': 'Latitude',
  'setup.alarmPhones': 'If an SOS cannot be sent, call (optional)',
  'setup.longitude': 'Longitude',
  'setup.save': 'CHECK AND SAVE',
  'setup.checking': 'Checking with the server…',
  'setup.failed': 'Not saved. Fix what is marked and try again.',
  'setup.badNumber': 'Latitude and longitude must be numbers',

  // Shift
  'shift.title': 'Who is on duty?',
  'shift.name': 'Your name',
  'shift.phone': 'Your phone (optional)',
  'shift.start': 'START SHIFT',
  'shift.cancel': 'Cancel',
  'language.label': 'Language',

  // Times and errors
  'time.justNow': 'just now',
  'time.minutesAgo': '{count} min ago',
  'time.hoursAgo': '{count} h ago',
  'time.duration.minutes': '{minutes} min',
  'time.duration.hours': '{hours} h {minutes} min',
  'error.generic': 'Something went wrong: {message}',
  'error.coreDown': 'The kiosk is not answering. Wait, or restart it.',
} as const satisfies Record<string, string>;

export type MessageKey = keyof typeof catalogue;
/** What every other language's file must provide: the same keys, its own words. */
export type Catalogue = Record<MessageKey, string>;

/** Placeholders filled into a message (`{name}`). */
export type Params = Record<string, string | number>;
/** Looks a message up in the guard's language (plain types, so plain Node code can take one). */
export type Translate = (key: MessageKey, params?: Params) => string;
